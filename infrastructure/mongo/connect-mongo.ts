import { channel } from 'node:diagnostics_channel';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { mongoClientDefaults } from './mongo-unavailable.ts';

export type MongoConnection = {
  db: Db;
  /** Resolves once the server answered a ping (what GET /ready asks). */
  ping: () => Promise<void>;
  close: () => Promise<void>;
};

/**
 * Where the driver's command monitoring goes, for whoever subscribes before the connection is made (the
 * tests that hold the round trips to a budget and check every query shape against an index). With no
 * subscriber at connect time the driver monitors nothing and pays nothing for it.
 */
export const mongoCommandChannel = channel('order-service:mongodb:command-started');
export type MongoCommandStarted = Pick<CommandStartedEvent, 'commandName' | 'command' | 'databaseName'>;

/** Connects to the configured database; the driver reconnects on its own after a connection is lost. */
export const connectMongo = async ({
  url,
  database,
}: {
  url: string;
  database: string;
}): Promise<MongoConnection> => {
  const monitored = mongoCommandChannel.hasSubscribers;
  const client = new MongoClient(url, { ...mongoClientDefaults(url), monitorCommands: monitored });
  if (monitored) {
    client.on('commandStarted', ({ commandName, command, databaseName }) =>
      mongoCommandChannel.publish({ commandName, command, databaseName } satisfies MongoCommandStarted),
    );
  }
  await client.connect();
  const db = client.db(database);
  return {
    db,
    ping: async () => {
      await db.command({ ping: 1 });
    },
    close: () => client.close(),
  };
};
