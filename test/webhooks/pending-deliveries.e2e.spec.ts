import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

type Pending = {
  deliveryId: string;
  eventType: string;
  orderingKey: string;
  state: 'scheduled' | 'retrying' | 'waiting' | 'held';
  attemptsMade: number;
  nextAttemptAt: string | null;
  acceptedAt: string;
  waitingBehind: string | null;
};
type PendingList = { meta: { limit: number; more: boolean }; data: Pending[] };

/**
 * GET /webhooks/{id}/deliveries/pending over HTTP, in both modes: a receiver that fails, an order
 * placed and then cancelled, and the cancellation's delivery shown waiting behind the placement's, which
 * has an attempt to show; both leave the list once the receiver is back and an admin retries the first.
 */
describe('the deliveries not settled yet, a waiting one included', () => {
  let service: TestService;
  let admin: Awaited<ReturnType<typeof webhookAdmin>>;
  let customer: OrderActor;
  let hooks: WebhookReceiver;
  let receiverUp = false;

  beforeAll(async () => {
    // One retry a minute away: the failing delivery stays at the head of its line for the whole test.
    service = await startTestService(
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '60000' },
      { time: 'real' },
    );
    admin = await webhookAdmin(service);
    customer = await orderActor(service, ['customer']);
    hooks = await startWebhookReceiver(() => ({ status: receiverUp ? 204 : 500 }));
  });
  afterAll(async () => {
    await hooks?.stop();
    await service?.stop();
  });

  const pendingOf = async (subscriptionId: string, query = '') => {
    const response = await admin.get(`/webhooks/${subscriptionId}/deliveries/pending${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    return (await response.json()) as PendingList;
  };

  it('shows the delivery queued behind a failing one as waiting, then neither once both are delivered', async () => {
    const subscription = await admin.register(hooks.url, ['order.created', 'order.status_changed']);
    const { order } = await customer.placeOrder();
    expect((await customer.post(`/orders/${order.id}/cancel`, {})).status).toBe(200);
    await hooks.waitFor((all) => all.length >= 1);
    await expect
      .poll(async () => (await pendingOf(subscription.id)).data.map(({ state }) => state), {
        timeout: 10_000,
      })
      .toEqual(['retrying', 'waiting']);

    const { meta, data } = await pendingOf(subscription.id);
    const [created, cancelled] = data;
    expect(meta).toEqual({ limit: 50, more: false });
    expect(created).toMatchObject({
      eventType: 'order.created',
      orderingKey: order.id,
      state: 'retrying',
      attemptsMade: 1,
      waitingBehind: null,
    });
    expect(Date.parse(created!.nextAttemptAt!)).toBeGreaterThan(Date.now() + 30_000);
    expect(cancelled).toMatchObject({
      eventType: 'order.status_changed',
      orderingKey: order.id,
      state: 'waiting',
      attemptsMade: 0,
      nextAttemptAt: null,
      waitingBehind: created!.deliveryId,
    });
    // The waiting one has nothing under …/deliveries yet: this is where it shows.
    expect((await admin.attempts(subscription.id)).map(({ eventType }) => eventType)).toEqual([
      'order.created',
    ]);
    expect(hooks.received.map(({ json }) => json.type)).toEqual(['order.created']);
    const first = await pendingOf(subscription.id, '?limit=1');
    expect(first.meta).toEqual({ limit: 1, more: true });
    expect(first.data.map(({ deliveryId }) => deliveryId)).toEqual([created!.deliveryId]);

    receiverUp = true;
    const retried = await admin.post(
      `/webhooks/${subscription.id}/deliveries/${created!.deliveryId}/retry`,
      {},
    );
    expect(retried.status).toBe(202);
    await hooks.waitFor((all) => all.some(({ json }) => json.type === 'order.status_changed'));
    await expect.poll(async () => (await pendingOf(subscription.id)).data, { timeout: 10_000 }).toEqual([]);
  });

  it('shows them held while their subscription is disabled, and as they were once it is enabled again', async () => {
    const failing = await startWebhookReceiver(() => ({ status: 500 }));
    try {
      const subscription = await admin.register(failing.url, ['order.created', 'order.status_changed']);
      const { order } = await customer.placeOrder();
      expect((await customer.post(`/orders/${order.id}/cancel`, {})).status).toBe(200);
      await failing.waitFor((all) => all.length >= 1);
      const states = async () => (await pendingOf(subscription.id)).data.map(({ state }) => state);
      await expect.poll(states, { timeout: 10_000 }).toEqual(['retrying', 'waiting']);
      const before = (await pendingOf(subscription.id)).data;

      const setActive = async (active: boolean) => {
        const changed = await admin.send('PATCH', `/webhooks/${subscription.id}`, { active });
        expect(changed.status).toBe(200);
        expect(((await changed.json()) as { active: boolean }).active).toBe(active);
        // Read once with its token: the query side (another process in the distributed mode) then knows it.
        const token = changed.headers.get('consistency-token')!;
        expect((await admin.get(`/webhooks/${subscription.id}`, { 'Consistency-Token': token })).status).toBe(
          200,
        );
      };
      await setActive(false);
      const held = (await pendingOf(subscription.id)).data;
      expect(held.map(({ state }) => state)).toEqual(['held', 'held']);
      // Nothing else about them changed: the same deliveries, their turn where it was.
      expect(
        held.map(({ deliveryId, nextAttemptAt, waitingBehind, attemptsMade }) => ({
          deliveryId,
          nextAttemptAt,
          waitingBehind,
          attemptsMade,
        })),
      ).toEqual(
        before.map(({ deliveryId, nextAttemptAt, waitingBehind, attemptsMade }) => ({
          deliveryId,
          nextAttemptAt,
          waitingBehind,
          attemptsMade,
        })),
      );

      await setActive(true);
      expect(await states()).toEqual(['retrying', 'waiting']);
    } finally {
      await failing.stop();
    }
  });

  it('refuses a bad limit with the field named, and anyone but an admin', async () => {
    const subscription = await admin.register(hooks.url, ['order.created']);
    for (const query of ['?limit=0', '?limit=101', '?limit=ten', '?perPage=5']) {
      const response = await admin.get(`/webhooks/${subscription.id}/deliveries/pending${query}`);
      expect(response.status, query).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as { errors: { field: string }[] };
      expect(
        problem.errors.map(({ field }) => field),
        query,
      ).toEqual([query.includes('limit') ? 'limit' : 'perPage']);
    }
    const unknown = await admin.get('/webhooks/6f1c1d9e-7c43-4a38-9f57-3c4b8f3d2a11/deliveries/pending');
    expect(unknown.status).toBe(404);
    expect((await customer.get(`/webhooks/${subscription.id}/deliveries/pending`)).status).toBe(403);
  });
});
