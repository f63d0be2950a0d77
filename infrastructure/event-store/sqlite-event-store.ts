import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { isUniqueViolation, openDatabase, type Durability } from '../sqlite/open-database.ts';
import {
  NO_STREAM,
  WrongExpectedRevisionError,
  type EventStore,
  type AppendResult,
  type EventToAppend,
  type ExpectedRevision,
  type RecordedEvent,
} from './event-store.ts';
import { createRecentEvents, type StoredEvent } from './recent-events.ts';
import { createWakeup } from './wakeup.ts';

export type SqliteEventStoreOptions = {
  /** The log file, for example `${DATA_DIR}/events.sqlite`, or ':memory:'. */
  path: string;
  durability?: Durability;
  /**
   * How often a live subscription looks for events appended by another process sharing the file.
   * Appends made through this store wake its subscriptions at once.
   */
  pollIntervalMs?: number;
  /** Events fetched per read while a subscription catches up. */
  batchSize?: number;
  /**
   * How many of the events it appended last the store keeps decoded for its subscriptions (between this and
   * twice this many: they are dropped in bulk). Followers in the same process trail the appends by a few
   * dozen events under load (71 at most over 30,000 orders at 3,000/s, issue 31); one further behind reads
   * the file, as one in another process does. Each kept event costs about 1.7 kB of heap once decoded.
   */
  recentEventsKept?: number;
};

// Streams get a small integer key: the per-event index then grows at its end instead of at random
// places in a tree of 40-byte text keys, which roughly doubles append throughput on a large log.
const schema = `
  CREATE TABLE IF NOT EXISTS streams (
    stream_key INTEGER PRIMARY KEY,
    stream_id  TEXT    NOT NULL UNIQUE,
    revision   INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS events (
    position   INTEGER PRIMARY KEY,
    stream_key INTEGER NOT NULL,
    stream_id  TEXT    NOT NULL,
    revision   INTEGER NOT NULL,
    id         TEXT    NOT NULL,
    type       TEXT    NOT NULL,
    data       TEXT    NOT NULL,
    metadata   TEXT    NOT NULL,
    UNIQUE (stream_key, revision)
  );
`;

// Every column but stream_key, which only the append's index needs; read as arrays in this order, which
// node:sqlite builds in about half the time of objects keyed by column.
const eventColumns = 'position, stream_id, revision, id, type, data, metadata';
type EventRow = [
  position: bigint,
  streamId: string,
  revision: bigint,
  id: string,
  type: string,
  data: string,
  metadata: string,
];

/**
 * A row as a RecordedEvent. Its metadata is parsed at once: every reader of the log looks at it (the
 * codecs read the data's version there), and an object with a lazy getter cost more to make and collect
 * than the parse it put off.
 */
const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  id: row[3],
  type: row[4],
  data: JSON.parse(row[5]) as Record<string, unknown>,
  metadata: JSON.parse(row[6]) as RecordedEvent['metadata'],
  streamId: row[1],
  revision: Number(row[2]),
  position: row[0],
});
// The statements that read events return arrays (setReturnArrays), which node:sqlite's types do not know of.
const eventsOf = (statement: StatementSync, ...parameters: SQLInputValue[]): RecordedEvent[] =>
  (statement.all(...parameters) as unknown as EventRow[]).map(toRecordedEvent);

/**
 * The embedded event log: one SQLite file in WAL mode. Optimistic concurrency is a compare-and-set on the
 * stream's revision inside the append's write transaction, backed by UNIQUE (stream_id, revision), so two
 * writers (threads or processes) can never both append at the same revision. Positions are SQLite rowids:
 * assigned under the write lock, so they increase in commit order with no gaps a reader could overtake.
 */
export const createSqliteEventStore = ({
  path,
  durability = 'process-crash',
  pollIntervalMs = 250,
  batchSize = 1000,
  recentEventsKept = 2_000,
}: SqliteEventStoreOptions): EventStore => {
  // A 40 MB WAL between checkpoints instead of 4 MB: each checkpoint syncs, so fewer of them means faster
  // appends, at the price of a larger -wal file and a longer pause now and then.
  const db = openDatabase({ path, durability, walCheckpointPages: 10_000 });
  db.exec(schema);

  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const createStream = db.prepare(
    'INSERT INTO streams (stream_id, revision) VALUES (?, ?) RETURNING stream_key',
  );
  const advanceStream = db.prepare(
    'UPDATE streams SET revision = ? WHERE stream_id = ? AND revision = ? RETURNING stream_key',
  );
  const streamRevision = db.prepare('SELECT revision FROM streams WHERE stream_id = ?');
  // Multi-row INSERTs: one call into SQLite per chunk of events rather than per event.
  const rowsPerInsert = 16;
  const insertStatements = new Map<number, StatementSync>();
  const insertEvents = (rows: number): StatementSync => {
    let statement = insertStatements.get(rows);
    if (!statement) {
      const placeholders = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ');
      statement = db.prepare(
        `INSERT INTO events (stream_key, stream_id, revision, id, type, data, metadata) VALUES ${placeholders}`,
      );
      insertStatements.set(rows, statement);
    }
    return statement;
  };
  const selectStream = db.prepare(
    `SELECT ${eventColumns} FROM events WHERE stream_key = (SELECT stream_key FROM streams WHERE stream_id = ?)
     AND revision >= ? ORDER BY revision LIMIT ?`,
  );
  const selectAfter = db.prepare(
    `SELECT ${eventColumns} FROM events WHERE position > ? ORDER BY position LIMIT ?`,
  );
  const selectBefore = db.prepare(
    `SELECT ${eventColumns} FROM events WHERE position < ? ORDER BY position DESC LIMIT ?`,
  );
  const selectHead = db.prepare('SELECT max(position) AS position FROM events');
  for (const statement of [selectStream, selectAfter, selectBefore, selectHead])
    statement.setReadBigInts(true);
  for (const statement of [selectStream, selectAfter, selectBefore]) statement.setReturnArrays(true);

  const appended = createWakeup();
  const recent = createRecentEvents(recentEventsKept);
  const closing = new AbortController();

  const currentRevision = (streamId: string): ExpectedRevision => {
    const row = streamRevision.get(streamId) as { revision: number } | undefined;
    return row === undefined ? NO_STREAM : row.revision;
  };

  /** Compare-and-set of the stream's revision: the stream's key when it was at `expected`, else undefined. */
  const claimRevisions = (streamId: string, expected: ExpectedRevision, last: number): number | undefined => {
    if (expected === NO_STREAM) {
      try {
        return (createStream.get(streamId, last) as { stream_key: number }).stream_key;
      } catch (error) {
        if (isUniqueViolation(error)) return undefined;
        throw error;
      }
    }
    return (advanceStream.get(last, streamId, expected) as { stream_key: number } | undefined)?.stream_key;
  };

  /**
   * One append inside the open write transaction: its result, or the conflict when the CAS fails. The rows
   * it wrote go to `written`.
   */
  const appendInTransaction = (
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
    written: StoredEvent[],
  ): AppendResult | WrongExpectedRevisionError => {
    const first = expected === NO_STREAM ? 0 : expected + 1;
    const last = first + events.length - 1;
    const streamKey = claimRevisions(streamId, expected, last);
    // A failed claim wrote nothing: the other appends of the group stay valid.
    if (streamKey === undefined)
      return new WrongExpectedRevisionError(streamId, expected, currentRevision(streamId));
    let lastRowid: number | bigint = 0;
    // The events of one command usually share one metadata object: serialize it once.
    let metadataOf: EventToAppend['metadata'] | undefined;
    let metadataJson = '';
    for (let start = 0; start < events.length; start += rowsPerInsert) {
      const chunk = Math.min(rowsPerInsert, events.length - start);
      const values: SQLInputValue[] = new Array(chunk * 7);
      const rows: StoredEvent[] = new Array(chunk);
      for (let offset = 0; offset < chunk; offset++) {
        const event = events[start + offset]!;
        if (event.metadata !== metadataOf) {
          metadataOf = event.metadata;
          metadataJson = JSON.stringify(event.metadata);
        }
        const row: StoredEvent = {
          position: 0n,
          streamId,
          revision: first + start + offset,
          id: event.id,
          type: event.type,
          data: JSON.stringify(event.data),
          metadata: metadataJson,
        };
        const base = offset * 7;
        values[base] = streamKey;
        values[base + 1] = streamId;
        values[base + 2] = row.revision;
        values[base + 3] = row.id;
        values[base + 4] = row.type;
        values[base + 5] = row.data;
        values[base + 6] = row.metadata;
        rows[offset] = row;
      }
      lastRowid = insertEvents(chunk).run(...values).lastInsertRowid;
      // The rows of one INSERT take consecutive rowids: each is the largest so far plus one.
      const firstPosition = BigInt(lastRowid) - BigInt(chunk - 1);
      rows.forEach((row, offset) => {
        row.position = firstPosition + BigInt(offset);
        written.push(row);
      });
    }
    return { nextExpectedRevision: last, position: BigInt(lastRowid) };
  };

  // Group commit: the appends requested within one turn of the event loop share one write transaction,
  // so concurrent requests pay for one commit between them. Each is acknowledged only once it committed.
  type PendingAppend = {
    streamId: string;
    events: readonly EventToAppend[];
    expected: ExpectedRevision;
    resolve: (result: AppendResult) => void;
    reject: (error: unknown) => void;
  };
  let pending: PendingAppend[] = [];
  let flushScheduled = false;

  const flush = () => {
    flushScheduled = false;
    const group = pending;
    pending = [];
    if (group.length === 0) return;
    let outcomes: (AppendResult | WrongExpectedRevisionError)[];
    const written: StoredEvent[] = [];
    try {
      begin.run();
      outcomes = group.map((append) =>
        appendInTransaction(append.streamId, append.events, append.expected, written),
      );
      commit.run();
    } catch (error) {
      // Anything but a conflict (a full disk, a closed file) fails the whole group: nothing of it committed.
      if (db.isOpen && db.isTransaction) rollback.run();
      for (const append of group) append.reject(error);
      return;
    }
    group.forEach((append, index) => {
      const outcome = outcomes[index]!;
      if (outcome instanceof WrongExpectedRevisionError) append.reject(outcome);
      else append.resolve(outcome);
    });
    recent.appended(written);
    appended.notify();
  };

  const readAfter = (after: bigint, maxCount: number): RecordedEvent[] =>
    recent.after(after, maxCount) ?? eventsOf(selectAfter, after, maxCount);

  return {
    // SQLite's INTEGER: a signed 64-bit number.
    maxPosition: (1n << 63n) - 1n,
    appendToStream(streamId, events, { expectedRevision }) {
      if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
      if (closing.signal.aborted) return Promise.reject(new Error('the event store is closed'));
      return new Promise<AppendResult>((resolve, reject) => {
        pending.push({ streamId, events, expected: expectedRevision, resolve, reject });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    },

    async readStream(streamId, { fromRevision = 0, maxCount = Number.MAX_SAFE_INTEGER } = {}) {
      return eventsOf(selectStream, streamId, fromRevision, maxCount);
    },

    async readAll({ after = 0n, maxCount }) {
      return readAfter(after, maxCount);
    },

    async readAllBackwards({ before, maxCount }) {
      // 2^63 - 1: past every rowid SQLite can hand out.
      const bound = before ?? 0x7fff_ffff_ffff_ffffn;
      return eventsOf(selectBefore, bound, maxCount);
    },

    async *subscribeToAll({ after = 0n, signal } = {}) {
      const stop = AbortSignal.any([closing.signal, ...(signal ? [signal] : [])]);
      let position = after;
      while (!stop.aborted) {
        const seen = appended.seen();
        const batch = readAfter(position, batchSize);
        for (const event of batch) {
          if (stop.aborted) return;
          yield event;
          position = event.position;
        }
        if (batch.length < batchSize) await appended.wait(pollIntervalMs, stop, seen);
      }
    },

    async headPosition() {
      const { position } = selectHead.get() as { position: bigint | null };
      return position;
    },

    async close() {
      flush();
      closing.abort();
      if (db.isOpen) db.close();
    },
  };
};
