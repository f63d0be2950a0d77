import { parseConnectionString } from '@eventstore/db-client/dist/Client/parseConnectionString.js';

const shape = 'an EventStoreDB connection string (esdb://host:2113?tls=false, or esdb+discover://...)';

/**
 * What is wrong with an EventStoreDB connection string, by the client's own parser (the one
 * `EventStoreDBClient.connectionString` uses), or undefined when nothing is. The answer never quotes the
 * string: it may hold a password. The parser's own messages do quote it, and so does the warning it prints
 * for an option it does not know or ignores (tlsVerifyCert=false); such a string is refused here, so that the
 * client never prints it at start.
 */
export const eventStoreConnectionStringProblem = (value: string): string | undefined => {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
  try {
    parseConnectionString(value);
  } catch (error) {
    const { location, expected } = error as { location?: unknown; expected?: unknown };
    const where =
      Array.isArray(location) && typeof location[0] === 'number' && typeof expected === 'string'
        ? `: ${expected} expected at character ${location[0] + 1}`
        : '';
    return `must be ${shape}${where}`;
  } finally {
    console.warn = warn;
  }
  const [warning] = warnings;
  if (warning === undefined) return undefined;
  const key = /^Unknown option key "([A-Za-z][A-Za-z_-]{0,39})"/.exec(warning)?.[1];
  if (/^"tlsVerifyCert" is not currently supported/.test(warning)) {
    return 'must not set tlsVerifyCert=false: the EventStoreDB client ignores it (give tlsCAFile instead)';
  }
  return `has an option the EventStoreDB client does not know${key === undefined ? '' : ` (${key})`}`;
};
