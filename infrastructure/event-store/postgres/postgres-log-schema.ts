import type { Sql } from 'postgres';

/**
 * The log's tables, in a schema of their own. `transaction_id` is the appending transaction's id: the
 * followers' order is (transaction_id, position), and they read only transactions older than every one still
 * running (see postgres-event-store.ts), so an event that commits late can never be passed over.
 * `position` alone is a bigserial, handed out before commit, which is why it cannot be the order.
 */
const statements = [
  'CREATE SCHEMA IF NOT EXISTS event_log',
  `CREATE TABLE IF NOT EXISTS event_log.events (
     position       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     transaction_id xid8   NOT NULL DEFAULT pg_current_xact_id(),
     stream_id      text   NOT NULL,
     revision       bigint NOT NULL,
     id             text   NOT NULL,
     type           text   NOT NULL,
     data           json   NOT NULL,
     metadata       json   NOT NULL,
     UNIQUE (stream_id, revision)
   )`,
  'CREATE INDEX IF NOT EXISTS events_in_log_order ON event_log.events (transaction_id, position)',
  `CREATE TABLE IF NOT EXISTS event_log.schema_version (
     version integer NOT NULL
   )`,
];

const currentVersion = 1;

/** Any number, the same in every process: the key of the lock that lets one process at a time migrate. */
const migrationLock = 0x6f72_6465_726c_6f67n; // "orderlog"

/**
 * Creates or upgrades the log's schema. Idempotent; processes starting together take turns on an advisory
 * lock, so two never race on the same CREATE. A schema newer than this code is refused.
 */
export const migrateLogSchema = async (sql: Sql): Promise<void> => {
  await sql.begin(async (transaction) => {
    await transaction`SELECT pg_advisory_xact_lock(${migrationLock.toString()}::bigint)`;
    await transaction`SET LOCAL client_min_messages = warning`;
    for (const statement of statements) await transaction.unsafe(statement);
    const [row] = await transaction<
      { version: number }[]
    >`SELECT max(version) AS version FROM event_log.schema_version`;
    const found = row?.version ?? null;
    if (found !== null && found > currentVersion) {
      throw new Error(
        `the event log's schema is version ${found}, newer than this release knows (${currentVersion})`,
      );
    }
    if (found === null)
      await transaction`INSERT INTO event_log.schema_version (version) VALUES (${currentVersion})`;
  });
};
