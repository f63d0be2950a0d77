import {
  BACKWARDS,
  END,
  type EventStoreDBClient,
  FORWARDS,
  NO_STREAM as ESDB_NO_STREAM,
  START,
  StreamNotFoundError,
  UnknownError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type Position,
  type RecordedEvent as EsdbRecordedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import {
  InvalidPositionError,
  NO_STREAM,
  WrongExpectedRevisionError,
  type EventStore,
  type ExpectedRevision,
  type GlobalPosition,
  type RecordedEvent,
  type StreamEvent,
} from './event-store.ts';

const uint64 = 0xffff_ffff_ffff_ffffn;

/**
 * EventStoreDB positions are pairs (commit, prepare) ordered by commit, then prepare. Packing them into one
 * bigint, commit in the high 64 bits, keeps that order under plain comparison, so the port's single
 * increasing position holds even for events that share a commit position (one multi-event append).
 */
const packPosition = ({ commit, prepare }: Position): GlobalPosition => (commit << 64n) | prepare;

/**
 * The pair a packed position stands for, or InvalidPositionError for a number no event of EventStoreDB can
 * have: an event's prepare position is never past its commit position (the server refuses such a pair with
 * an error of its own, not a read), so a small number such as 5, which would unpack to (0, 5), names nothing.
 */
const unpackPosition = (position: GlobalPosition): Position => {
  const commit = position >> 64n;
  const prepare = position & uint64;
  if (position < 0n || commit > uint64 || prepare > commit) throw new InvalidPositionError(position);
  return { commit, prepare };
};

/**
 * The server's answer to a read from a position that is no record's (a pair that passes the check above but
 * points into the middle of one): `UNKNOWN: Trying to read from an invalid position.` from recent versions.
 * Older ones answer a bare UNKNOWN that cannot be told from any other failure, and so stays one.
 */
const refusedPosition = (error: unknown, position: GlobalPosition | undefined): unknown =>
  position !== undefined && error instanceof UnknownError && /invalid position/i.test(error.message)
    ? new InvalidPositionError(position)
    : error;

const isSystemEvent = (event: EsdbRecordedEvent): boolean =>
  event.type.startsWith('$') || event.streamId.startsWith('$');

const toStreamEvent = (event: EsdbRecordedEvent): StreamEvent => ({
  id: event.id,
  type: event.type,
  data: event.data as Record<string, unknown>,
  metadata: event.metadata as StreamEvent['metadata'],
  streamId: event.streamId,
  revision: Number(event.revision),
});

const positionOf = (event: EsdbRecordedEvent): GlobalPosition => {
  if (!event.position) throw new Error(`event ${event.id} was read without its log position`);
  return packPosition(event.position);
};

const toRecordedEvent = (event: EsdbRecordedEvent, position: GlobalPosition): RecordedEvent => ({
  ...toStreamEvent(event),
  position,
});

const toExpectedRevision = (expected: ExpectedRevision) =>
  expected === NO_STREAM ? ESDB_NO_STREAM : BigInt(expected);

const fromActualVersion = (actual: unknown): ExpectedRevision =>
  typeof actual === 'bigint' ? Number(actual) : NO_STREAM;

/**
 * The most events one read asks the server for. Every read names its count: without one the client asks for
 * Number.MAX_SAFE_INTEGER events, with no deadline, and the call then lives as long as the log is long.
 */
const pageSize = 4096;

/**
 * Hands each event of one read (one gRPC call) to `take` until it returns false or the read ends, and ends
 * the call in every case. Leaving a `for await` (break, return, throw) destroys only the client's Transform:
 * the gRPC call under it stays open, holding one of the server's concurrent streams (100 by default) and,
 * without a count, streaming on, until the client is disposed. `cancel()` is what ends the call (it is a
 * no-op on a call that ended already). Returns how many events the server sent before the reading stopped.
 */
const consume = async <Event extends EsdbRecordedEvent>(
  read: StreamingRead<{ event?: Event | undefined }>,
  take: (event: Event) => boolean,
  deadlineMs: number,
): Promise<number> => {
  let received = 0;
  // The client gives reads no deadline (Infinity, whatever it is told): a server that stops answering
  // would hold the call, and its caller, for ever. Past the deadline the read fails and its call ends.
  const deadline = setTimeout(
    () => read.destroy(new Error(`EventStoreDB did not finish a read within ${deadlineMs} ms`)),
    deadlineMs,
  );
  try {
    for await (const resolved of read) {
      received++;
      if (resolved.event && !take(resolved.event)) break;
    }
  } finally {
    clearTimeout(deadline);
    // A read whose call never started (no connection) rejects here too; its own error is the one to throw.
    await read.cancel().catch(() => {});
  }
  return received;
};

/**
 * The production event log on EventStoreDB. The client comes from the composition root
 * (`EventStoreDBClient.connectionString(EVENTSTORE_URL)`), which also disposes of it.
 * Events are JSON; system streams and events ($-prefixed) never reach callers.
 */
export const createEventStoreDbEventStore = (
  client: EventStoreDBClient,
  {
    readDeadlineMs = 30_000,
  }: {
    /** How long one page of a read (at most 4096 events) may take before it fails and its call ends. */
    readDeadlineMs?: number;
  } = {},
): EventStore => {
  /**
   * Up to maxCount events of $all that are not system events, strictly after `from` in `direction`
   * (from the start or the end when absent), read in bounded pages: each page is one call of a known count
   * that ends when the page does. A read starts at its position inclusively, so each page after the first
   * starts at the last event seen and skips it.
   */
  const readAllPages = async (
    direction: typeof FORWARDS | typeof BACKWARDS,
    from: GlobalPosition | undefined,
    maxCount: number,
    firstPageSize = pageSize,
  ): Promise<RecordedEvent[]> => {
    const events: RecordedEvent[] = [];
    const beyond =
      direction === FORWARDS
        ? (position: GlobalPosition, bound: GlobalPosition) => position > bound
        : (position: GlobalPosition, bound: GlobalPosition) => position < bound;
    const origin = from;
    let systemEvents = 0;
    for (let firstPage = true; events.length < maxCount; firstPage = false) {
      const bound = from;
      // What is still wanted, and the event at `bound` itself that comes back first. After a page that held
      // system events, the next asks for more in proportion to those skipped so far: a long run of them
      // (rare) takes a few pages that grow, not one call per event.
      const needed = maxCount - events.length + (bound === undefined ? 0 : 1);
      const count = firstPage
        ? Math.min(firstPageSize, needed)
        : Math.min(pageSize, needed + 2 * systemEvents);
      const fromPosition =
        bound === undefined ? (direction === FORWARDS ? START : END) : unpackPosition(bound);
      let last: GlobalPosition | undefined;
      let received: number;
      try {
        received = await consume(
          client.readAll({ fromPosition, direction, maxCount: count }),
          (event) => {
            const position = positionOf(event);
            last = position;
            if (isSystemEvent(event)) {
              systemEvents++;
              return true;
            }
            if (bound !== undefined && !beyond(position, bound)) return true;
            events.push(toRecordedEvent(event, position));
            return events.length < maxCount;
          },
          readDeadlineMs,
        );
      } catch (error) {
        // Only the server's refusal (UNKNOWN) may be the position's fault; no answer, or no server, is not.
        if (!firstPage || origin === undefined || !(error instanceof UnknownError)) throw error;
        // A read from the caller's position failed. Past the end of the log that is no mistake: EventStoreDB
        // fails a backwards read from beyond its last record (a forwards one finds nothing), where the port
        // answers the newest events, as node:sqlite does.
        const head = await headPosition().catch(() => undefined);
        if (head === undefined) throw error;
        if (head === null || origin > head) {
          return direction === FORWARDS ? [] : readAllPages(BACKWARDS, undefined, maxCount);
        }
        throw refusedPosition(error, origin);
      }
      // A short page is the end of the log; a full one of system events only goes on past its last event.
      if (received < count || last === undefined || last === bound) break;
      from = last;
    }
    return events;
  };

  const headPosition = async (): Promise<GlobalPosition | null> => {
    // The log's last event is nearly always one of ours: a page of one. System events at the end (stats,
    // scavenges, settings) are skipped in pages that grow from there, each a call of a known count.
    const [last] = await readAllPages(BACKWARDS, undefined, 1, 1);
    return last === undefined ? null : last.position;
  };

  return {
    // A (commit, prepare) pair of unsigned 64-bit numbers, packed.
    maxPosition: (1n << 128n) - 1n,
    async appendToStream(streamId, events, { expectedRevision }) {
      if (events.length === 0) throw new Error('append needs at least one event');
      try {
        const result = await client.appendToStream(
          streamId,
          events.map((event) =>
            jsonEvent({ id: event.id, type: event.type, data: event.data, metadata: event.metadata }),
          ),
          { expectedRevision: toExpectedRevision(expectedRevision) },
        );
        if (!result.position) throw new Error(`append to ${streamId} returned no log position`);
        return {
          nextExpectedRevision: Number(result.nextExpectedRevision),
          position: packPosition(result.position),
        };
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) {
          throw new WrongExpectedRevisionError(
            streamId,
            expectedRevision,
            fromActualVersion(error.actualVersion),
          );
        }
        throw error;
      }
    },

    async readStream(streamId, { fromRevision = 0, maxCount } = {}) {
      const events: StreamEvent[] = [];
      let next = fromRevision;
      for (;;) {
        const count = Math.min(pageSize, maxCount === undefined ? pageSize : maxCount - events.length);
        if (count <= 0) return events;
        let received: number;
        try {
          received = await consume(
            client.readStream(streamId, { fromRevision: BigInt(next), direction: FORWARDS, maxCount: count }),
            (event) => {
              events.push(toStreamEvent(event));
              return true;
            },
            readDeadlineMs,
          );
        } catch (error) {
          // Absent, or deleted between two pages: what was read so far is the stream.
          if (error instanceof StreamNotFoundError) return events;
          throw error;
        }
        if (received < count || events.length === 0) return events;
        next = events.at(-1)!.revision + 1;
      }
    },

    async readAll({ after, maxCount }) {
      if (maxCount <= 0) return [];
      return readAllPages(FORWARDS, after, maxCount);
    },

    async readAllBackwards({ before, maxCount }) {
      if (maxCount <= 0) return [];
      return readAllPages(BACKWARDS, before, maxCount);
    },

    async *subscribeToAll({ after, signal } = {}) {
      if (signal?.aborted) return;
      const subscription = client.subscribeToAll({
        fromPosition: after === undefined ? START : unpackPosition(after),
        filter: excludeSystemEvents(),
      });
      // unsubscribe() cancels the gRPC call (it is a no-op on one that ended already).
      const stop = () => void subscription.unsubscribe().catch(() => {});
      signal?.addEventListener('abort', stop, { once: true });
      try {
        for await (const resolved of subscription) {
          const event = resolved.event;
          if (!event || isSystemEvent(event)) continue;
          yield toRecordedEvent(event, positionOf(event));
        }
      } catch (error) {
        throw refusedPosition(error, after);
      } finally {
        signal?.removeEventListener('abort', stop);
        await subscription.unsubscribe().catch(() => {});
      }
    },

    headPosition,

    async close() {
      await client.dispose();
    },
  };
};
