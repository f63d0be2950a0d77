import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { orderStreamName } from '../../domain/orders/order.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import {
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';
import { consistencyTokenFor } from '../support/consistency-tokens.ts';

// One log holding an order shipped by an OrderShipped of version 1, as the release before versioned events
// wrote it (no carrier, no tracking, no schemaVersion: as an instance of that release still running during
// a rolling upgrade would append it), and an order shipped through the API today (version 2).

let service: TestService;
let staff: OrderActor;
let admin: Awaited<ReturnType<typeof webhookAdmin>>;
let receiver: WebhookReceiver;
let subscriptionId: string;
/** Shipped by a version 1 event, and shipped through the API today. */
let old: { id: string; eventId: string; shippedAt: string };
let today: { id: string; shipped: OrderBody; token: string };
const details = {
  carrier: 'DHL',
  trackingNumber: 'JD014600006281234567',
  trackingUrl: 'https://www.dhl.example/track?id=JD014600006281234567',
};

type EventBody = { type: string; revision: number; version: number; data: Record<string, unknown> };

const get = (path: string, headers: Record<string, string> = {}) => staff.get(path, headers);
const json = async <T>(path: string, headers: Record<string, string> = {}) => {
  const response = await get(path, headers);
  expect(response.status, `GET ${path}`).toBe(200);
  return (await response.json()) as T;
};
/** The order.status_changed webhooks saying this order was shipped. */
const shipmentsOf = (orderId: string) => (request: ReceivedWebhook) =>
  request.json.type === 'order.status_changed' &&
  request.json.data['orderId'] === orderId &&
  request.json.data['to'] === 'shipped';

beforeAll(async () => {
  service = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, { time: 'real' });
  receiver = await startWebhookReceiver();
  admin = await webhookAdmin(service);
  subscriptionId = (await admin.register(receiver.url)).id;
  const customer = await orderActor(service, ['customer']);
  staff = await orderActor(service, ['staff']);
  const placeAndConfirm = async () => {
    const { order } = await customer.placeOrder();
    expect((await staff.post(`/orders/${order.id}/confirm`)).status).toBe(200);
    return order.id;
  };

  const oldId = await placeAndConfirm();
  // Given: the old release's append, on a connection of its own to the same log.
  const oldRelease = createSqliteEventStore({ path: join(service.dataDir, 'events.sqlite') });
  const shippedAt = new Date().toISOString();
  const eventId = randomUUID();
  const { position } = await oldRelease.appendToStream(
    orderStreamName(oldId),
    [
      {
        id: eventId,
        type: 'OrderShipped',
        data: { orderId: oldId, shippedAt },
        metadata: {
          actor: { userId: staff.id, roles: ['staff'] },
          correlationId: randomUUID(),
          causationId: null,
          occurredAt: shippedAt,
        },
      },
    ],
    { expectedRevision: 1 },
  );
  await oldRelease.close();
  old = { id: oldId, eventId, shippedAt };
  // The read model has it once a query with its position answers.
  await json(`/orders/${oldId}`, { 'Consistency-Token': consistencyTokenFor(service, position, staff.id) });

  const todayId = await placeAndConfirm();
  const shipped = await staff.post(`/orders/${todayId}/ship`, details);
  expect(shipped.status).toBe(200);
  today = {
    id: todayId,
    shipped: (await shipped.json()) as OrderBody,
    token: shipped.headers.get('consistency-token')!,
  };
});
afterAll(async () => {
  await receiver?.stop();
  await service?.stop();
});

it('GET /orders/{id}: the order shipped by version 1 has a shipment of nulls, the one shipped today its details', async () => {
  const oldOrder = await json<OrderBody>(`/orders/${old.id}`);
  expect(oldOrder).toMatchObject({ status: 'shipped', updatedAt: old.shippedAt });
  expect(oldOrder.shipment).toEqual({
    carrier: null,
    trackingNumber: null,
    trackingUrl: null,
    shippedAt: old.shippedAt,
  });

  const todayOrder = await json<OrderBody>(`/orders/${today.id}`, { 'Consistency-Token': today.token });
  expect(todayOrder.shipment).toEqual({ ...details, shippedAt: todayOrder.updatedAt });
  // The read model's order is the command's answer, byte for byte.
  expect(todayOrder).toEqual(today.shipped);
});

it('GET /orders/{id}/events: each event as stored, in the version it was written in', async () => {
  const oldEvents = await json<EventBody[]>(`/orders/${old.id}/events`);
  expect(oldEvents.map(({ type, version }) => [type, version])).toEqual([
    ['OrderPlaced', 2],
    ['OrderConfirmed', 1],
    ['OrderShipped', 1],
  ]);
  expect(oldEvents[2]!.data).toEqual({ orderId: old.id, shippedAt: old.shippedAt });

  const todayEvents = await json<EventBody[]>(`/orders/${today.id}/events`);
  expect(todayEvents.map(({ type, version }) => [type, version])).toEqual([
    ['OrderPlaced', 2],
    ['OrderConfirmed', 1],
    ['OrderShipped', 2],
  ]);
  expect(todayEvents[2]!.data).toEqual({
    orderId: today.id,
    shippedAt: today.shipped.shipment!.shippedAt,
    ...details,
  });
});

it('GET /orders/{id}?revision=N: no shipment before the ship; from it, the order as it is, but for its actions', async () => {
  for (const id of [old.id, today.id]) {
    const confirmed = await json<OrderBody>(`/orders/${id}?revision=1`);
    expect(confirmed.status).toBe('confirmed');
    expect(confirmed).not.toHaveProperty('shipment');

    // A past state offers nothing to do: the same order, without `actions` (so other bytes, another ETag).
    const [atShip, current] = await Promise.all([get(`/orders/${id}?revision=2`), get(`/orders/${id}`)]);
    const { actions, ...withoutActions } = (await current.json()) as OrderBody & { actions: string[] };
    expect(actions).toEqual(['deliver', 'record-payment']);
    expect(await atShip.json()).toEqual(withoutActions);
    expect(atShip.headers.get('etag')).not.toBe(current.headers.get('etag'));
  }
});

it('webhooks carry the shipment inside the order, and a redelivery carries it again', async () => {
  const [oldChange] = (await receiver.waitFor((all) => all.some(shipmentsOf(old.id)))).filter(
    shipmentsOf(old.id),
  );
  expect(oldChange!.json.data).toMatchObject({
    from: 'confirmed',
    to: 'shipped',
    order: { shipment: { carrier: null, trackingNumber: null, trackingUrl: null, shippedAt: old.shippedAt } },
  });
  expect(oldChange!.headers['webhook-id']).toBe(old.eventId);

  const [todayChange] = (await receiver.waitFor((all) => all.some(shipmentsOf(today.id)))).filter(
    shipmentsOf(today.id),
  );
  // The webhook's order is the resource without `actions`, which are a reader's (the command's answer has them).
  const { actions: _actions, ...shippedOrder } = today.shipped as OrderBody & { actions?: string[] };
  expect(todayChange!.json.data).toMatchObject({ to: 'shipped', order: shippedOrder });
  expect(todayChange!.json.data['order']).not.toHaveProperty('actions');

  const attempt = (await admin.attempts(subscriptionId)).find((a) => a.eventId === old.eventId)!;
  const retried = await admin.post(`/webhooks/${subscriptionId}/deliveries/${attempt.deliveryId}/retry`);
  expect(retried.status).toBe(202);
  const again = await receiver.waitFor((all) => all.filter(shipmentsOf(old.id)).length === 2);
  const redelivered = again.filter(shipmentsOf(old.id))[1]!;
  expect(redelivered.headers['webhook-id']).toBe(old.eventId);
  expect(redelivered.body).toBe(oldChange!.body);
});

it('projections:rebuild and projections:verify agree, and the orders read the same after the rebuild', async () => {
  const paths = [old.id, today.id].map((id) => `/orders/${id}`);
  const before = await Promise.all(paths.map(async (path) => (await get(path)).headers.get('etag')));

  const rebuilt = await runAdmin(['projections:rebuild'], { DATA_DIR: service.dataDir });
  expect(rebuilt.code, rebuilt.stderr).toBe(0);
  const verified = await runAdmin(['projections:verify'], { DATA_DIR: service.dataDir });
  expect(verified.code, verified.stdout).toBe(0);
  expect(verified.stdout).toMatch(/^OK: the \d+ orders of the read model match a replay of the log/);

  const after = await Promise.all(paths.map(async (path) => (await get(path)).headers.get('etag')));
  expect(after).toEqual(before);
});

// Last: it changes both orders.
it('delivers both, each keeping the shipment it had', async () => {
  for (const id of [old.id, today.id]) {
    const shipment = (await json<OrderBody>(`/orders/${id}`)).shipment;
    const delivered = await staff.post(`/orders/${id}/deliver`);
    expect(delivered.status).toBe(200);
    const order = (await delivered.json()) as OrderBody;
    expect(order).toMatchObject({ status: 'delivered', shipment });
    const token = delivered.headers.get('consistency-token')!;
    expect(await json<OrderBody>(`/orders/${id}`, { 'Consistency-Token': token })).toEqual(order);
  }
});
