import {
  BACKWARDS,
  END,
  type EventStoreDBClient,
  FORWARDS,
  NO_STREAM as ESDB_NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type Position,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import {
  NO_STREAM,
  WrongExpectedRevisionError,
  type EventStore,
  type ExpectedRevision,
  type GlobalPosition,
  type RecordedEvent,
  type StreamEvent,
} from './event-store.ts';

/**
 * EventStoreDB positions are pairs (commit, prepare) ordered by commit, then prepare. Packing them into one
 * bigint, commit in the high 64 bits, keeps that order under plain comparison, so the port's single
 * increasing position holds even for events that share a commit position (one multi-event append).
 */
const packPosition = ({ commit, prepare }: Position): GlobalPosition => (commit << 64n) | prepare;
const unpackPosition = (position: GlobalPosition): Position => ({
  commit: position >> 64n,
  prepare: position & 0xffff_ffff_ffff_ffffn,
});

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

const toRecordedEvent = (event: EsdbRecordedEvent): RecordedEvent => {
  if (!event.position) throw new Error(`event ${event.id} was read without its log position`);
  return { ...toStreamEvent(event), position: packPosition(event.position) };
};

const toExpectedRevision = (expected: ExpectedRevision) =>
  expected === NO_STREAM ? ESDB_NO_STREAM : BigInt(expected);

const fromActualVersion = (actual: unknown): ExpectedRevision =>
  typeof actual === 'bigint' ? Number(actual) : NO_STREAM;

/**
 * The production event log on EventStoreDB. The client comes from the composition root
 * (`EventStoreDBClient.connectionString(EVENTSTORE_URL)`), which also disposes of it.
 * Events are JSON; system streams and events ($-prefixed) never reach callers.
 */
export const createEventStoreDbEventStore = (client: EventStoreDBClient): EventStore => {
  const readAllFrom = async function* (after: GlobalPosition | undefined) {
    // readAll starts at its position inclusively, unlike subscriptions: skip the event at `after` itself.
    for await (const resolved of client.readAll({
      fromPosition: after === undefined ? START : unpackPosition(after),
      direction: FORWARDS,
    })) {
      const event = resolved.event;
      if (!event || isSystemEvent(event)) continue;
      const recorded = toRecordedEvent(event);
      if (after !== undefined && recorded.position <= after) continue;
      yield recorded;
    }
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
      try {
        for await (const resolved of client.readStream(streamId, {
          fromRevision: BigInt(fromRevision),
          direction: FORWARDS,
          ...(maxCount === undefined ? {} : { maxCount }),
        })) {
          if (resolved.event) events.push(toStreamEvent(resolved.event));
        }
      } catch (error) {
        if (error instanceof StreamNotFoundError) return [];
        throw error;
      }
      return events;
    },

    async readAll({ after, maxCount }) {
      const events: RecordedEvent[] = [];
      if (maxCount <= 0) return events;
      for await (const event of readAllFrom(after)) {
        events.push(event);
        if (events.length >= maxCount) break;
      }
      return events;
    },

    async readAllBackwards({ before, maxCount }) {
      const events: RecordedEvent[] = [];
      if (maxCount <= 0) return events;
      // Backwards reads start at their position inclusively too: skip the event at `before` itself.
      for await (const resolved of client.readAll({
        fromPosition: before === undefined ? END : unpackPosition(before),
        direction: BACKWARDS,
      })) {
        const event = resolved.event;
        if (!event || isSystemEvent(event)) continue;
        const recorded = toRecordedEvent(event);
        if (before !== undefined && recorded.position >= before) continue;
        events.push(recorded);
        if (events.length >= maxCount) break;
      }
      return events;
    },

    async *subscribeToAll({ after, signal } = {}) {
      if (signal?.aborted) return;
      const subscription = client.subscribeToAll({
        fromPosition: after === undefined ? START : unpackPosition(after),
        filter: excludeSystemEvents(),
      });
      const stop = () => void subscription.unsubscribe();
      signal?.addEventListener('abort', stop, { once: true });
      try {
        for await (const resolved of subscription) {
          const event = resolved.event;
          if (!event || isSystemEvent(event)) continue;
          yield toRecordedEvent(event);
        }
      } finally {
        signal?.removeEventListener('abort', stop);
        await subscription.unsubscribe();
      }
    },

    async headPosition() {
      for await (const resolved of client.readAll({ fromPosition: END, direction: BACKWARDS })) {
        const event = resolved.event;
        if (event && !isSystemEvent(event)) return toRecordedEvent(event).position;
      }
      return null;
    },

    async close() {
      await client.dispose();
    },
  };
};
