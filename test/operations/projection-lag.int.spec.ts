import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { eventsBehind, projectionLagCheck } from '../../infrastructure/event-sourcing/projection-lag.ts';

describe('how far a projection trails the log', () => {
  let eventStore: EventStore;
  const positions: bigint[] = [];

  beforeEach(async () => {
    eventStore = createSqliteEventStore({ path: ':memory:' });
    positions.length = 0;
    for (let revision = 0; revision < 5; revision++) {
      const { position } = await eventStore.appendToStream(
        'order-1',
        [
          {
            id: randomUUID(),
            type: 'Noted',
            data: {},
            metadata: {
              actor: null,
              correlationId: 'c',
              causationId: null,
              occurredAt: '2026-11-21T10:00:00Z',
            },
          },
        ],
        { expectedRevision: revision === 0 ? 'no-stream' : revision - 1 },
      );
      positions.push(position);
    }
  });
  afterEach(() => eventStore.close());

  it('counts the events after a position, up to a limit', async () => {
    expect(await eventsBehind(eventStore, null, 100)).toBe(5);
    expect(await eventsBehind(eventStore, positions[1]!, 100)).toBe(3);
    expect(await eventsBehind(eventStore, positions[4]!, 100)).toBe(0);
    expect(await eventsBehind(eventStore, null, 2)).toBe(2);
    expect(await eventsBehind(createSqliteEventStore({ path: ':memory:' }), null, 100)).toBe(0);
  });

  it('is ok while every projection is within the bound, and says which is not', async () => {
    const check = (orders: bigint | null, subscriptions: bigint | null) =>
      projectionLagCheck({
        eventStore,
        maxLag: 2,
        projections: { orders: async () => orders, subscriptions: async () => subscriptions },
      })();
    expect(await check(positions[2]!, positions[4]!)).toEqual({
      status: 'ok',
      detail: 'events behind the log head: orders 2, subscriptions 0',
    });
    expect(await check(positions[1]!, positions[4]!)).toEqual({
      status: 'failing',
      detail: 'more than 2 events behind the log head: orders',
    });
    expect(await check(null, null)).toEqual({
      status: 'failing',
      detail: 'more than 2 events behind the log head: orders, subscriptions',
    });
  });
});
