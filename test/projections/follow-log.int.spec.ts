import { afterEach, beforeEach, expect, it } from 'vitest';
import { followLog } from '../../infrastructure/event-sourcing/follow-log.ts';
import {
  NO_STREAM,
  type EventStore,
  type GlobalPosition,
  type RecordedEvent,
} from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';

// The kernel's one loop that follows the log, under the projection runner and the projection group alike:
// batches in log order, a failed attempt followed again from where the caller says it got to, stopped by
// its signal.

let eventStore: EventStore;
beforeEach(() => {
  eventStore = createSqliteEventStore({ path: ':memory:' });
});
afterEach(async () => {
  await eventStore.close();
});

const append = async (streamId: string, count: number) =>
  (
    await eventStore.appendToStream(
      streamId,
      Array.from({ length: count }, (_, index) => ({
        id: `${streamId}-${index}`,
        type: 'Noted',
        data: { index },
        metadata: {
          actor: null,
          correlationId: 'test',
          causationId: null,
          occurredAt: '2026-11-25T10:00:00Z',
        },
      })),
      { expectedRevision: NO_STREAM },
    )
  ).position;

/** Follows with `onBatch` until `done(handled)` holds; every batch it was handed, and every failure. */
const followUntil = async ({
  from,
  onBatch,
  done,
}: {
  from: () => GlobalPosition | null;
  onBatch: (batch: RecordedEvent[]) => Promise<void>;
  done: (handled: RecordedEvent[][]) => boolean;
}) => {
  const stopping = new AbortController();
  const handled: RecordedEvent[][] = [];
  const failures: unknown[] = [];
  await followLog({
    eventStore,
    from,
    signal: stopping.signal,
    batchSize: 2,
    retryDelayMs: 1,
    minBatchIntervalMs: 0,
    async onBatch(batch) {
      await onBatch(batch);
      handled.push(batch);
      if (done(handled)) stopping.abort();
    },
    onFailure: (error) => failures.push(error),
  });
  return { handled, failures };
};

it('hands over the log after where it starts, in order, in batches of at most batchSize', async () => {
  await append('a', 1);
  const after = await append('b', 2);
  const last = await append('c', 3);

  const { handled, failures } = await followUntil({
    from: () => after,
    onBatch: async () => {},
    done: (batches) => batches.flat().at(-1)?.position === last,
  });

  expect(failures).toEqual([]);
  expect(handled.every((batch) => batch.length >= 1 && batch.length <= 2)).toBe(true);
  expect(handled.flat().map((event) => event.streamId)).toEqual(['c', 'c', 'c']);
});

it("after a failed batch, follows again from where the caller's position says, missing nothing", async () => {
  const last = await append('a', 5);
  let position: GlobalPosition | null = null;
  let failuresLeft = 1;

  const { handled, failures } = await followUntil({
    from: () => position,
    onBatch: async (batch) => {
      if (batch[0]!.revision === 2 && failuresLeft-- > 0) throw new Error('read store briefly unavailable');
      position = batch.at(-1)!.position;
    },
    done: () => position === last,
  });

  expect(failures).toHaveLength(1);
  expect(handled.flat().map((event) => event.revision)).toEqual([0, 1, 2, 3, 4]);
});

it('ends at once when its signal is aborted before it starts', async () => {
  await append('a', 1);
  const stopping = new AbortController();
  stopping.abort();
  const handled: RecordedEvent[][] = [];
  await followLog({
    eventStore,
    from: () => null,
    signal: stopping.signal,
    batchSize: 10,
    retryDelayMs: 1,
    minBatchIntervalMs: 0,
    onBatch: async (batch) => void handled.push(batch),
    onFailure: () => {},
  });
  expect(handled).toEqual([]);
});
