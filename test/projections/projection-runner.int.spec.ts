import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventStore, RecordedEvent } from '../../infrastructure/event-store/event-store.ts';
import { NO_STREAM } from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import type { CheckpointStore } from '../../infrastructure/event-sourcing/checkpoints.ts';
import type { OrderReadModel } from '../../projections/orders/order-read-model.ts';
import { startProjectionRunner } from '../../infrastructure/event-sourcing/projection-runner.ts';
import { createSqliteCheckpointStore } from '../../infrastructure/event-sourcing/sqlite-checkpoint-store.ts';
import { createSqliteOrderReadModel } from '../../projections/orders/sqlite-order-read-model.ts';
import { placeCommand, recordedHistory } from '../support/order-history.ts';

const logger = pino({ level: 'silent' });
let dir: string;
let eventStore: EventStore;
let readStore: ReturnType<typeof openDatabase>;
let readModel: OrderReadModel;
let checkpoints: CheckpointStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'projection-runner-'));
  eventStore = createSqliteEventStore({ path: join(dir, 'events.sqlite'), pollIntervalMs: 1000 });
  readStore = openDatabase({ path: join(dir, 'read-store.sqlite') });
  readModel = createSqliteOrderReadModel(readStore);
  checkpoints = createSqliteCheckpointStore(readStore);
});
afterEach(async () => {
  await eventStore.close();
  readStore.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Appends a placed-and-confirmed order's events; returns its id and the position of its last event. */
const appendOrder = async () => {
  const { orderId, events } = recordedHistory((id) => [
    placeCommand(id),
    { type: 'ConfirmOrder', data: { orderId: id, confirmedAt: '2026-11-21T11:00:00.000Z' } },
  ]);
  const appended = await eventStore.appendToStream(
    events[0]!.streamId,
    events.map(({ id, type, data, metadata }) => ({ id, type, data, metadata })),
    { expectedRevision: NO_STREAM },
  );
  return { orderId, position: appended.position };
};

/** Appends a new order's one OrderPlaced event; returns the event's position. */
const appendPlaced = async () => {
  const { events } = recordedHistory((id) => [placeCommand(id)]);
  const [{ id, type, data, metadata, streamId }] = events as [RecordedEvent];
  return (
    await eventStore.appendToStream(streamId, [{ id, type, data, metadata }], { expectedRevision: NO_STREAM })
  ).position;
};

/** A runner whose apply records every position it is given. */
const start = (
  applied: bigint[],
  apply = (events: readonly RecordedEvent[]) => readModel.applyEvents(events),
  minBatchIntervalMs = 0,
) =>
  startProjectionRunner({
    name: 'orders',
    eventStore,
    checkpoints,
    logger,
    retryDelayMs: 10,
    minBatchIntervalMs,
    apply: async (events) => {
      await apply(events);
      applied.push(...events.map((event) => event.position));
    },
  });

describe('the projection runner', () => {
  it('catches up on the log, then follows live appends; waitFor resolves once a position is applied', async () => {
    const before = await Promise.all([appendOrder(), appendOrder()]);
    const applied: bigint[] = [];
    const runner = await start(applied);
    try {
      const live = await appendOrder();
      expect(await runner.waitFor(live.position, 5000)).toBe(true);
      for (const { orderId } of [...before, live]) {
        expect((await readModel.getOrder(orderId))?.status).toBe('confirmed');
      }
      expect(runner.position()).toBe(live.position);
      expect(await checkpoints.load('orders')).toBe(live.position);
    } finally {
      await runner.stop();
    }
  });

  it('resumes from its checkpoint after a restart: nothing applied twice, nothing missed', async () => {
    const firstRun: bigint[] = [];
    const runner = await start(firstRun);
    const early = await appendOrder();
    await runner.waitFor(early.position, 5000);
    await runner.stop();

    const whileStopped = await appendOrder();
    const secondRun: bigint[] = [];
    const restarted = await start(secondRun);
    try {
      const after = await appendOrder();
      expect(await restarted.waitFor(after.position, 5000)).toBe(true);
      const log = (await eventStore.readAll({ maxCount: 1000 })).map((event) => event.position);
      expect([...firstRun, ...secondRun]).toEqual(log);
      expect(secondRun[0]).toBeGreaterThan(early.position);
      expect((await readModel.getOrder(whileStopped.orderId))?.status).toBe('confirmed');
    } finally {
      await restarted.stop();
    }
  });

  it('retries a batch that failed, losing nothing', async () => {
    let failures = 1;
    const applied: bigint[] = [];
    const runner = await start(applied, async (events) => {
      if (failures-- > 0) throw new Error('read store briefly unavailable');
      await readModel.applyEvents(events);
    });
    try {
      const { orderId, position } = await appendOrder();
      expect(await runner.waitFor(position, 5000)).toBe(true);
      expect((await readModel.getOrder(orderId))?.status).toBe('confirmed');
      expect(failures).toBe(-1);
    } finally {
      await runner.stop();
    }
  });

  it('answers false to waitFor a position it does not reach in time', async () => {
    const runner = await start([]);
    try {
      const { position } = await appendOrder();
      expect(await runner.waitFor(position + 1000n, 50)).toBe(false);
    } finally {
      await runner.stop();
    }
  });

  describe('with a batch interval', () => {
    const interval = 60_000;

    it('applies a lone event at once, and the next lone one too', async () => {
      const runner = await start([], undefined, interval);
      try {
        expect(await runner.waitFor(await appendPlaced(), 5000)).toBe(true);
        expect(await runner.waitFor(await appendPlaced(), 5000)).toBe(true);
      } finally {
        await runner.stop();
      }
    });

    it('holds what follows a batch of several events for the interval, and stops without waiting it out', async () => {
      const applied: bigint[] = [];
      const runner = await start(applied, undefined, interval);
      const several = await appendOrder();
      expect(await runner.waitFor(several.position, 5000)).toBe(true);
      const held = await appendPlaced();
      expect(await runner.waitFor(held, 300)).toBe(false);
      expect(applied).not.toContain(held);
      // Waiting out the interval would outlast the test's timeout.
      await runner.stop();
    });
  });
});
