import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import { createPublicEventMapper, type PublicOrderEvent } from '../../projections/relay/public-events.ts';
import { webhookBody } from '../../webhook-dispatcher/accept-events.ts';
import { copyOfFixture, shippedOrderIds } from './recorded-answers.ts';

// The webhooks the previous release delivered for the golden log are in its read store, as the bytes it
// signed and sent. The relay of this release, reading the same log, must build the same bytes, but for the
// deliberate change: an order shipped by then gains `shipment` inside the order a webhook carries.

let dataDir: string;
let eventStore: EventStore;
beforeAll(() => {
  dataDir = copyOfFixture();
  eventStore = createSqliteEventStore({ path: join(dataDir, 'events.sqlite') });
});
afterAll(async () => {
  await eventStore.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The body of every webhook the previous release delivered (or gave up on), by the event it was for. */
const deliveredBodies = () => {
  const readStore = new DatabaseSync(join(dataDir, 'read-store.sqlite'), { readOnly: true });
  try {
    const rows = readStore
      .prepare("SELECT event_id, body FROM webhook_deliveries WHERE event_type <> 'webhook.test'")
      .all() as { event_id: string; body: string }[];
    return new Map(rows.map((row) => [row.event_id, row.body]));
  } finally {
    readStore.close();
  }
};

type StatusChange = { to: string; order: Record<string, unknown> & { id: string } };

it("builds, from the golden log, the webhooks the previous release sent, but for the orders' shipment", async () => {
  const recorded = deliveredBodies();
  const mapper = createPublicEventMapper({
    eventStore,
    topics: { orderEvents: 'order-events', webhookRequests: 'webhook-requests', deadLetter: 'dead-letter' },
  });
  const messages = (await mapper.toMessages(await eventStore.readAll({ maxCount: 1000 }))).get(
    'order-events',
  )!;
  const shipments = new Map<string, unknown>();

  // Every order event of the log was sent by that release to the subscriber of every kind.
  expect(new Set(messages.map((message) => (JSON.parse(message.value) as PublicOrderEvent).id))).toEqual(
    new Set(recorded.keys()),
  );
  for (const message of messages) {
    const event = JSON.parse(message.value) as PublicOrderEvent;
    const body = webhookBody(event.type, event.occurredAt, event.data);
    const before = recorded.get(event.id)!;
    const change = event.data as StatusChange;
    if (event.type !== 'order.status_changed' || !['shipped', 'delivered'].includes(change.to)) {
      expect(body, `${event.type} of ${event.orderId}, revision ${event.revision}`).toBe(before);
      continue;
    }
    const { shipment, ...order } = change.order;
    if (change.to === 'shipped') shipments.set(order.id, shipment);
    expect(shipment, `the shipment of ${order.id} when ${change.to}`).toEqual({
      carrier: null,
      trackingNumber: null,
      trackingUrl: null,
      shippedAt:
        change.to === 'shipped'
          ? event.occurredAt
          : (shipments.get(order.id) as { shippedAt: string }).shippedAt,
    });
    expect(webhookBody(event.type, event.occurredAt, { ...change, order }), `${change.to}: ${order.id}`).toBe(
      before,
    );
  }
  expect([...shipments.keys()].sort()).toEqual([...shippedOrderIds].sort());
});

it('builds the same messages when it keeps no order state, reading each order from the log', async () => {
  const topics = {
    orderEvents: 'order-events',
    webhookRequests: 'webhook-requests',
    deadLetter: 'dead-letter',
  };
  const events = await eventStore.readAll({ maxCount: 1000 });
  let streamsRead = 0;
  const counting: EventStore = {
    ...eventStore,
    readStream: (...args) => {
      streamsRead++;
      return eventStore.readStream(...args);
    },
  };
  const kept = await createPublicEventMapper({ eventStore: counting, topics }).toMessages(events);
  expect(streamsRead).toBe(0);
  const forgetful = await createPublicEventMapper({ eventStore: counting, topics, cacheSize: 0 }).toMessages(
    events,
  );
  // Every event after an order's first reads the order's stream.
  expect(streamsRead).toBeGreaterThan(0);
  expect(forgetful).toEqual(kept);
});
