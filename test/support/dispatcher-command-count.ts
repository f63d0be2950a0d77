import type { CommandStartedEvent, MongoClient } from 'mongodb';

export type CountedCommand = { name: string; collection: string | null };

/** The collection a command names (its first field's value), when it names one. */
const collectionOf = (event: CommandStartedEvent): string | null => {
  const value = event.command[event.commandName] as unknown;
  return typeof value === 'string' ? value : null;
};

/** Commands that only keep a connection going: not the adapters' round trips. */
const housekeeping = new Set(['hello', 'isMaster', 'ismaster', 'ping', 'endSessions', 'buildInfo']);

/**
 * Counts the commands a client started (its `monitorCommands: true` events), from `mark()` on: the round
 * trips the dispatcher's adapters make, by command and collection.
 */
export const countCommands = (client: MongoClient) => {
  let commands: CountedCommand[] = [];
  client.on('commandStarted', (event: CommandStartedEvent) => {
    if (!housekeeping.has(event.commandName)) {
      commands.push({ name: event.commandName, collection: collectionOf(event) });
    }
  });
  return {
    /** Starts counting afresh. */
    mark() {
      commands = [];
    },
    /** What was started since `mark()`. */
    since: (): readonly CountedCommand[] => commands,
    /** The commands since `mark()` as `name collection: count`, for a failure message. */
    summary: () => {
      const counts = new Map<string, number>();
      for (const { name, collection } of commands) {
        const key = `${name} ${collection ?? ''}`.trim();
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
    },
  };
};
