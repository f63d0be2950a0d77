import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventStore, RecordedEvent } from '../../infrastructure/event-store/event-store.ts';
import { NO_STREAM } from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import type { CheckpointStore } from '../../infrastructure/event-sourcing/checkpoints.ts';
import {
  startProjectionGroup,
  type ProjectionGroup,
} from '../../infrastructure/event-sourcing/projection-group.ts';
import { createSqliteCheckpointStore } from '../../infrastructure/event-sourcing/sqlite-checkpoint-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { placeCommand, recordedHistory } from '../support/order-history.ts';

// The projection group over a real node:sqlite log and checkpoint store: one read of the log, one
// checkpoint write per batch for all members, and members behind or failing that catch up on their own.
const logger = pino({ level: 'silent' });
let dir: string;
let eventStore: EventStore;
let readStore: ReturnType<typeof openDatabase>;
let checkpoints: CheckpointStore;
/** Every checkpoint write, with the names it saved. */
let writes: string[][];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'projection-group-'));
  eventStore = createSqliteEventStore({ path: join(dir, 'events.sqlite'), pollIntervalMs: 1000 });
  readStore = openDatabase({ path: join(dir, 'read-store.sqlite') });
  const store = createSqliteCheckpointStore(readStore);
  writes = [];
  checkpoints = {
    load: (name) => store.load(name),
    save: async (name, position) => {
      writes.push([name]);
      await store.save(name, position);
    },
    saveAll: async (positions) => {
      writes.push([...positions.keys()].sort());
      await store.saveAll(positions);
    },
  };
});
afterEach(async () => {
  await eventStore.close();
  readStore.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Appends a new order's OrderPlaced and OrderConfirmed events; the position of the last. */
const appendOrder = async () => {
  const { events } = recordedHistory((id) => [
    placeCommand(id),
    { type: 'ConfirmOrder', data: { orderId: id, confirmedAt: '2026-11-21T11:00:00.000Z' } },
  ]);
  const appended = await eventStore.appendToStream(
    events[0]!.streamId,
    events.map(({ id, type, data, metadata }) => ({ id, type, data, metadata })),
    { expectedRevision: NO_STREAM },
  );
  return appended.position;
};
const logPositions = async () => (await eventStore.readAll({ maxCount: 10_000 })).map((e) => e.position);

/** A member that records the positions it applied, and fails while `failing()` says so. */
const recorder = (
  name: string,
  failing: () => boolean = () => false,
  { savedWithNextBatch = false, gate }: { savedWithNextBatch?: boolean; gate?: () => Promise<void> } = {},
) => {
  const applied: bigint[] = [];
  const batches: number[] = [];
  return {
    applied,
    batches,
    member: {
      name,
      checkpoint: `${name}-v1`,
      savedWithNextBatch,
      apply: async (events: readonly RecordedEvent[]) => {
        await gate?.();
        if (failing()) throw new Error(`${name} cannot apply now`);
        applied.push(...events.map((event) => event.position));
        batches.push(events.length);
      },
    },
  };
};

const start = (members: ReturnType<typeof recorder>[]) =>
  startProjectionGroup({
    name: 'test-group',
    members: members.map((m) => m.member),
    eventStore,
    checkpoints,
    logger,
    retryDelayMs: 10,
  });

const waitAll = async (group: ProjectionGroup, position: bigint) => {
  for (const progress of Object.values(group.progress))
    expect(await progress.waitFor(position, 5000)).toBe(true);
};

describe('the projection group', () => {
  it('gives each member every event once, in order, with one checkpoint write per batch for all', async () => {
    const members = [recorder('orders'), recorder('subscriptions'), recorder('relay')];
    await appendOrder();
    const group = await start(members);
    try {
      const last = await appendOrder();
      await waitAll(group, last);
      const log = await logPositions();
      for (const { applied } of members) expect(applied).toEqual(log);
      expect(writes.length).toBe(members[0]!.batches.length);
      expect(writes.every((names) => names.join() === 'orders-v1,relay-v1,subscriptions-v1')).toBe(true);
      for (const name of ['orders-v1', 'subscriptions-v1', 'relay-v1']) {
        expect(await checkpoints.load(name)).toBe(last);
      }
    } finally {
      await group.stop();
    }
  });

  it('resumes from the stored positions after a restart: nothing applied twice, nothing missed', async () => {
    const first = [recorder('orders'), recorder('relay')];
    const group = await start(first);
    await waitAll(group, await appendOrder());
    await group.stop();
    await appendOrder();
    const second = [recorder('orders'), recorder('relay')];
    const restarted = await start(second);
    try {
      await waitAll(restarted, await appendOrder());
      const log = await logPositions();
      for (const index of [0, 1]) expect([...first[index]!.applied, ...second[index]!.applied]).toEqual(log);
    } finally {
      await restarted.stop();
    }
  });

  it('lets a member with no position (a read model being rebuilt) replay on its own, then rejoin', async () => {
    const early = [recorder('orders'), recorder('relay')];
    const group = await start(early);
    await waitAll(group, await appendOrder());
    await group.stop();
    // A new version of the orders read model: its checkpoint name is new, so it starts from the log's start.
    const rebuilt = recorder('orders-rebuilt');
    const relay = recorder('relay');
    const restarted = await start([rebuilt, relay]);
    try {
      await waitAll(restarted, await appendOrder());
      // The next batch finds it caught up, and it rejoins (its own runner may have applied that batch too).
      await waitAll(restarted, await appendOrder());
      const last = await appendOrder();
      await waitAll(restarted, last);
      expect(rebuilt.applied).toEqual(await logPositions());
      expect(relay.applied).toEqual((await logPositions()).slice(early[1]!.applied.length));
      // Caught up, it rejoined: the next batch saved both positions in one write.
      expect(writes.at(-1)).toEqual(['orders-rebuilt-v1', 'relay-v1']);
      expect(await checkpoints.load('orders-rebuilt-v1')).toBe(last);
    } finally {
      await restarted.stop();
    }
  });

  it('keeps the others going while a member fails, which retries on its own and then rejoins', async () => {
    let relayDown = true;
    const orders = recorder('orders');
    const relay = recorder('relay', () => relayDown);
    const group = await start([orders, relay]);
    try {
      const whileDown = await appendOrder();
      expect(await group.progress['orders']!.waitFor(whileDown, 5000)).toBe(true);
      const alsoWhileDown = await appendOrder();
      expect(await group.progress['orders']!.waitFor(alsoWhileDown, 5000)).toBe(true);
      expect(relay.applied).toEqual([]);
      expect(group.progress['relay']!.position()).toBeNull();

      relayDown = false;
      expect(await group.progress['relay']!.waitFor(alsoWhileDown, 5000)).toBe(true);
      // The next batch finds it caught up (its own runner may have applied that batch too), and it rejoins;
      // from the one after, the group saves both positions in one write.
      await waitAll(group, await appendOrder());
      const last = await appendOrder();
      await waitAll(group, last);
      const log = await logPositions();
      expect(orders.applied).toEqual(log);
      expect(relay.applied).toEqual(log);
      expect(writes.at(-1)).toEqual(['orders-v1', 'relay-v1']);
    } finally {
      await group.stop();
    }
  });

  it("saves a member's position with the next batch's write when told, so the others' write waits not for it", async () => {
    let release = () => {};
    let gated = true;
    const gate = () => (gated ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve());
    const orders = recorder('orders');
    const relay = recorder('relay', undefined, { savedWithNextBatch: true, gate });
    const group = await start([orders, relay]);
    try {
      const first = await appendOrder();
      // The relay has not finished the batch; the orders' position is saved already.
      expect(await group.progress['orders']!.waitFor(first, 5000)).toBe(true);
      expect(await checkpoints.load('orders-v1')).toBe(first);
      expect(await checkpoints.load('relay-v1')).toBeUndefined();
      gated = false;
      release();
      expect(await group.progress['relay']!.waitFor(first, 5000)).toBe(true);
      const second = await appendOrder();
      await waitAll(group, second);
      // The second batch's one write carried the relay's first position; its second waits for the next.
      expect(writes.at(-1)).toEqual(['orders-v1', 'relay-v1']);
      expect(await checkpoints.load('relay-v1')).toBe(first);
    } finally {
      await group.stop();
    }
    // Stopping saves what is left.
    expect(await checkpoints.load('relay-v1')).toBe(await logPositions().then((log) => log.at(-1)));
  });

  it('misses no batch of a member whose store fails while it would go solo (its checkpoint unreadable too)', async () => {
    // One store for the read model and its checkpoint (FerretDB in the distributed mode), lost between the
    // group's checkpoint write and the failed member's going solo: the batch is its again, not skipped.
    let storeDown = false;
    const load = checkpoints.load;
    checkpoints.load = async (name) => {
      if (storeDown) throw new Error('the checkpoint store is down');
      return load(name);
    };
    const orders = recorder('orders', () => storeDown);
    const relay = recorder('relay', undefined, { savedWithNextBatch: true });
    const group = await start([orders, relay]);
    try {
      await waitAll(group, await appendOrder());
      storeDown = true;
      const whileDown = await appendOrder();
      expect(await group.progress['relay']!.waitFor(whileDown, 5000)).toBe(true);
      storeDown = false;
      const last = await appendOrder();
      await waitAll(group, last);
      expect(orders.applied).toEqual(await logPositions());
      expect(relay.applied).toEqual(await logPositions());
    } finally {
      await group.stop();
    }
  });
});
