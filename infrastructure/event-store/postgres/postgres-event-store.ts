import postgres, { type PendingQuery, type Row, type Sql } from 'postgres';
import {
  EventLogUnavailableError,
  NO_STREAM,
  WrongExpectedRevisionError,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type GlobalPosition,
  type RecordedEvent,
  type StreamEvent,
} from '../event-store.ts';
import { createWakeup } from '../wakeup.ts';
import { createAppendSignals } from './append-signals.ts';
import { clientOptions, type PostgresLogConnection } from './postgres-connection.ts';
import { whileReachable } from './postgres-errors.ts';
import { migrateLogSchema } from './postgres-log-schema.ts';

export type PostgresEventStoreOptions = PostgresLogConnection & {
  /** Names this process's connections in pg_stat_activity. */
  applicationName?: string;
  /** The safety net under LISTEN/NOTIFY: how often an idle subscription looks for new events anyway. */
  pollIntervalMs?: number;
  /** Events fetched per read while a subscription catches up. */
  batchSize?: number;
};

/**
 * A position is the appending transaction's id and the event's bigserial, packed: (transaction_id << 64) |
 * position. Readers order by that pair and read only transactions older than every transaction still
 * running (`pg_snapshot_xmin`), so a transaction that took its positions first but commits last is never
 * passed over: its events stay out of sight, and so does everything after them, until it ends.
 */
const packPosition = (transactionId: string, position: string): GlobalPosition =>
  (BigInt(transactionId) << 64n) | BigInt(position);
const lowBits = (1n << 64n) - 1n;
const largestSerial = (1n << 63n) - 1n;
/** A position as (transaction id, serial) parameters; a serial beyond bigint's range orders as its largest. */
const unpackPosition = (position: GlobalPosition): [string, string] => {
  const serial = position & lowBits;
  return [(position >> 64n).toString(), (serial > largestSerial ? largestSerial : serial).toString()];
};

type EventRow = [
  transactionId: string,
  position: string,
  streamId: string,
  revision: string,
  id: string,
  type: string,
  data: Record<string, unknown>,
  metadata: StreamEvent['metadata'],
];
const toStreamEvent = (row: EventRow): StreamEvent => ({
  id: row[4],
  type: row[5],
  data: row[6],
  metadata: row[7],
  streamId: row[2],
  revision: Number(row[3]),
});
const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  ...toStreamEvent(row),
  position: packPosition(row[0], row[1]),
});

/** How soon a reader looks again for an append it knows of but cannot see yet; doubled each time. */
const firstRetryMs = 2;
/** How long a read of the log waits for what was committed before it to come in sight. */
const settleLimitMs = 1000;

/** The events as one JSON array parameter: one value to send however many events the append has. */
const toRecordset = (events: readonly EventToAppend[]): string =>
  JSON.stringify(events.map(({ id, type, data, metadata }) => ({ id, type, data, metadata })));

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23505';

/**
 * The event log on PostgreSQL, for the distributed mode across hosts. An append is one statement, so one
 * round trip and one transaction: the events' insert at the revisions after the expected one, which the
 * unique (stream, revision) index turns into a compare-and-set (appends to one stream take turns, appends to
 * others never wait). Followers are woken by
 * LISTEN/NOTIFY, with a slow poll as the safety net; the client reconnects, and follows a failover to
 * whichever host the URL names is read-write, by itself.
 */
export const createPostgresEventStore = async ({
  applicationName = 'order-service',
  pollIntervalMs = 1000,
  batchSize = 1000,
  ...connection
}: PostgresEventStoreOptions): Promise<EventStore> => {
  const options = clientOptions(connection, applicationName);
  const sql: Sql = postgres(connection.url, options);
  await migrateLogSchema(sql);
  const appended = createWakeup();
  const signals = createAppendSignals({ url: connection.url, options, wake: appended.notify });
  const closing = new AbortController();

  // Renamed as text: ORDER BY a column's own name would otherwise sort the text.
  const columns = sql`transaction_id::text AS tx, position::text AS pos, stream_id, revision::text AS rev,
    id, type, data, metadata`;
  const visible = sql`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`;

  const currentRevision = async (streamId: string): Promise<ExpectedRevision> => {
    const [row] = await whileReachable(
      () => sql`SELECT max(revision)::text AS rev FROM event_log.events WHERE stream_id = ${streamId}`,
    );
    return row?.['rev'] == null ? NO_STREAM : Number(row['rev']);
  };

  /** The rows of an append of one event, the usual case, as plain parameters. */
  const oneRow = (
    streamId: string,
    revision: number,
    { id, type, data, metadata }: EventToAppend,
    where: PendingQuery<Row[]>,
  ) =>
    sql`SELECT ${streamId}, ${revision}::bigint, ${id}, ${type}, ${JSON.stringify(data)}::text::json,
      ${JSON.stringify(metadata)}::text::json WHERE ${where}`;
  /** The rows of an append of several events: one JSON parameter, whatever their number, in order. */
  const rowsOf = (
    streamId: string,
    first: number,
    events: readonly EventToAppend[],
    where: PendingQuery<Row[]>,
  ) =>
    sql`SELECT ${streamId}, ${first} + e.ordinality - 1, e.id, e.type, e.data, e.metadata
      FROM ROWS FROM (json_to_recordset(${toRecordset(events)}::text::json)
           AS (id text, type text, data json, metadata json)) WITH ORDINALITY
           AS e(id, type, data, metadata, ordinality)
      WHERE ${where} ORDER BY e.ordinality`;

  /**
   * The events at the revisions after `expected`, if the stream is there now. The unique (stream, revision)
   * index is the compare-and-set: of two appends after the same revision, the second to insert waits for the
   * first and fails (23505); an append after a revision the stream has not reached inserts nothing.
   */
  const insert = async (streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision) => {
    const first = expected === NO_STREAM ? 0 : expected + 1;
    const streamIsAtExpected =
      expected === NO_STREAM
        ? sql`TRUE`
        : sql`EXISTS (SELECT FROM event_log.events WHERE stream_id = ${streamId} AND revision = ${expected})`;
    const rows = await sql<{ tx: string; pos: string }[]>`
      INSERT INTO event_log.events (stream_id, revision, id, type, data, metadata)
      ${
        events.length === 1
          ? oneRow(streamId, first, events[0]!, streamIsAtExpected)
          : rowsOf(streamId, first, events, streamIsAtExpected)
      }
      RETURNING transaction_id::text AS tx, position::text AS pos`;
    if (rows.length === 0)
      throw new WrongExpectedRevisionError(streamId, expected, await currentRevision(streamId));
    const last = rows.reduce((latest, row) => (BigInt(row.pos) > BigInt(latest.pos) ? row : latest));
    return { nextExpectedRevision: first + events.length - 1, position: packPosition(last.tx, last.pos) };
  };

  /**
   * Waits until every append committed before the call is in sight (no transaction older than it is still
   * open), for at most `settleLimitMs`: a read of the log then shows what the reader itself just appended,
   * as on the other logs. Open transactions last milliseconds; one left open longer is waited for no more.
   */
  const committedInSight = async () => {
    const [head] = await whileReachable(
      () => sql`SELECT tx::text, tx < pg_snapshot_xmin(pg_current_snapshot()) AS in_sight FROM
        (SELECT transaction_id AS tx FROM event_log.events ORDER BY transaction_id DESC LIMIT 1) AS head`,
    );
    if (head === undefined || head['in_sight'] === true) return;
    const started = Date.now();
    for (let delayMs = firstRetryMs; Date.now() - started < settleLimitMs; delayMs *= 2) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const [row] = await whileReachable(
        () => sql`SELECT ${head['tx']}::xid8 < pg_snapshot_xmin(pg_current_snapshot()) AS in_sight`,
      );
      if (row?.['in_sight'] === true) return;
    }
  };

  const readAfter = async (after: GlobalPosition, maxCount: number): Promise<RecordedEvent[]> => {
    const [transactionId, position] = unpackPosition(after);
    const rows = await whileReachable(() =>
      sql`SELECT ${columns} FROM event_log.events
      WHERE (transaction_id, position) > (${transactionId}::xid8, ${position}::bigint) AND ${visible}
      ORDER BY transaction_id, position LIMIT ${maxCount}`.values(),
    );
    return (rows as unknown as EventRow[]).map(toRecordedEvent);
  };

  return {
    // (2^64 - 1) << 64 | serial: the largest transaction id with any serial.
    maxPosition: (1n << 128n) - 1n,

    async appendToStream(streamId, events, { expectedRevision }) {
      if (events.length === 0) throw new Error('append needs at least one event');
      if (closing.signal.aborted) throw new Error('the event store is closed');
      try {
        const result = await whileReachable(() => insert(streamId, events, expectedRevision));
        signals.appended(result.position);
        return result;
      } catch (error) {
        // Another append took the revision first (see `insert`).
        if (!isUniqueViolation(error)) throw error;
        throw new WrongExpectedRevisionError(streamId, expectedRevision, await currentRevision(streamId));
      }
    },

    async readStream(streamId, { fromRevision = 0, maxCount = Number.MAX_SAFE_INTEGER } = {}) {
      const rows = await whileReachable(() =>
        sql`SELECT ${columns} FROM event_log.events
        WHERE stream_id = ${streamId} AND revision >= ${fromRevision}
        ORDER BY revision LIMIT ${Math.min(maxCount, Number.MAX_SAFE_INTEGER)}`.values(),
      );
      return (rows as unknown as EventRow[]).map(toStreamEvent);
    },

    async readAll({ after = 0n, maxCount }) {
      await committedInSight();
      return readAfter(after, maxCount);
    },

    async readAllBackwards({ before, maxCount }) {
      await committedInSight();
      const [transactionId, position] = unpackPosition(before ?? (1n << 128n) - 1n);
      const rows = await whileReachable(() =>
        sql`SELECT ${columns} FROM event_log.events
        WHERE (transaction_id, position) < (${transactionId}::xid8, ${position}::bigint) AND ${visible}
        ORDER BY transaction_id DESC, position DESC LIMIT ${maxCount}`.values(),
      );
      return (rows as unknown as EventRow[]).map(toRecordedEvent);
    },

    async *subscribeToAll({ after = 0n, signal } = {}) {
      const stop = AbortSignal.any([closing.signal, ...(signal ? [signal] : [])]);
      signals.listen();
      let position = after;
      let retryMs = firstRetryMs;
      while (!stop.aborted) {
        const seen = appended.seen();
        const batch = await readAfter(position, batchSize).catch((error: unknown) => {
          // Out of reach (a restart, a failover): look again at the next poll, from where it stood.
          if (error instanceof EventLogUnavailableError) return null;
          throw error;
        });
        if (batch === null) {
          await appended.wait(pollIntervalMs, stop, appended.seen());
          continue;
        }
        for (const event of batch) {
          if (stop.aborted) return;
          yield event;
          position = event.position;
        }
        if (batch.length > 0) retryMs = firstRetryMs;
        if (batch.length === batchSize) continue;
        if (signals.latest() > position) {
          // Told of an append it cannot see yet: an older transaction is still open. Look again soon.
          await appended.wait(retryMs, stop, seen);
          retryMs = Math.min(retryMs * 2, pollIntervalMs);
        } else {
          await appended.wait(pollIntervalMs, stop, seen);
        }
      }
    },

    // The last event committed, in sight or not yet: every position an append returned is at most this.
    async headPosition() {
      const [row] = await whileReachable(
        () => sql`SELECT transaction_id::text AS tx, position::text AS pos
        FROM event_log.events ORDER BY transaction_id DESC, position DESC LIMIT 1`,
      );
      return row === undefined ? null : packPosition(row['tx'], row['pos']);
    },

    async close() {
      closing.abort();
      await signals.close();
      await sql.end({ timeout: 5 });
    },
  };
};
