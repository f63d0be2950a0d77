import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { testEventTypes } from '../../domain/webhook-subscriptions/subscription.ts';
import { webhookEvents } from '../../openapi/webhook-events.ts';
import { problemOf } from '../support/http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import {
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';
import { webhookAdmin, type SubscriptionBody } from '../support/webhooks.ts';

type Stats = {
  attempts: number;
  delivered: number;
  successRate: number | null;
  lastOutcome: string | null;
  lastAttemptAt: string | null;
};
type SubscriptionRead = SubscriptionBody & { deliveryStats: Stats };

const verify = (secret: string, request: ReceivedWebhook) =>
  new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });

// Issue 44: a test event of each type the service publishes, and each subscription's delivery stats in the API.
describe('test events of each type, and delivery stats per subscription, over HTTP', () => {
  let service: TestService;
  let admin: Awaited<ReturnType<typeof webhookAdmin>>;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...args: Parameters<typeof startWebhookReceiver>) => {
    const started = await startWebhookReceiver(...args);
    receivers.push(started);
    return started;
  };
  const read = async (id: string) => {
    const response = await admin.get(`/webhooks/${id}`);
    expect(response.status).toBe(200);
    return (await response.json()) as SubscriptionRead;
  };
  const listed = async (id: string) => {
    const response = await admin.get('/webhooks');
    expect(response.status).toBe(200);
    return ((await response.json()) as SubscriptionRead[]).find((subscription) => subscription.id === id);
  };

  beforeAll(async () => {
    service = await startTestService(
      // Retries far off: the stats test retries by hand, when it has read the stats after the failure.
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '60000,60000' },
      { time: 'real' },
    );
    admin = await webhookAdmin(service);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await service.stop();
  });

  it('sends an example of every type, signed, marked as a test, in its type’s shape, whatever the subscription takes', async () => {
    const hooks = await receiver(() => ({ status: 204 }));
    // It takes order.created only: the admin asks for the others by name, and gets them.
    const { id, secret } = await admin.register(hooks.url, ['order.created']);
    for (const eventType of testEventTypes) {
      const response = await admin.post(`/webhooks/${id}/test`, { eventType });
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({ subscriptionId: id, type: eventType, status: 'requested' });
    }
    const requests = await hooks.waitFor((all) => all.length >= testEventTypes.length);
    expect(requests.map((request) => request.json.type).sort()).toEqual([...testEventTypes].sort());
    for (const request of requests) {
      expect(verify(secret, request)).toEqual(request.json);
      expect(request.json).toMatchObject({ test: true });
      const schema = webhookEvents.find((event) => event.name === request.json.type)!.body;
      expect(schema.safeParse(request.json).error?.issues ?? []).toEqual([]);
    }
    const shipped = requests.find((request) => request.json.type === 'order.status_changed')!.json.data;
    expect(shipped).toMatchObject({
      from: 'confirmed',
      to: 'shipped',
      order: { customerId: 'example-customer' },
    });

    // Each shows among the attempts under its own type, with the webhook-id the receiver got.
    await expect
      .poll(async () => (await admin.attempts(id)).length, { timeout: 10_000 })
      .toBe(testEventTypes.length);
    const attempts = await admin.attempts(id);
    expect(attempts.map((attempt) => attempt.eventType).sort()).toEqual([...testEventTypes].sort());
    expect(new Set(attempts.map((attempt) => attempt.eventId))).toEqual(
      new Set(requests.map((request) => request.headers['webhook-id'])),
    );
    expect(attempts.every((attempt) => attempt.outcome === 'delivered')).toBe(true);
    const onlyShipped = (await (
      await admin.get(`/webhooks/${id}/deliveries?eventType=order.status_changed`)
    ).json()) as { data: { eventType: string }[] };
    expect(onlyShipped.data.map((attempt) => attempt.eventType)).toEqual(['order.status_changed']);

    // No body, or an empty one, is webhook.test, as before.
    expect(await (await admin.post(`/webhooks/${id}/test`)).json()).toMatchObject({ type: 'webhook.test' });
  });

  it('refuses a type it does not publish with a 400 naming the allowed ones, and sends nothing', async () => {
    const hooks = await receiver();
    const { id } = await admin.register(hooks.url);
    for (const body of [
      { eventType: 'order.shipped' },
      { eventType: 42 },
      { eventType: 'webhook.test', x: 1 },
    ]) {
      const response = await admin.post(`/webhooks/${id}/test`, body);
      expect(response.status).toBe(400);
      const problem = await problemOf(response);
      expect(problem.type).toMatch(/validation-failed$/);
      if (body.eventType !== 'webhook.test') {
        expect(JSON.stringify(problem)).toContain(testEventTypes.join(', '));
      }
    }
    // An accepted request after them is the only one delivered.
    expect((await admin.post(`/webhooks/${id}/test`, { eventType: 'payment.received' })).status).toBe(202);
    await hooks.waitFor((all) => all.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hooks.received.map((request) => request.json.type)).toEqual(['payment.received']);
  });

  it('gives each subscription its delivery stats in the list and alone, changing after a 500 and a 204', async () => {
    // The first request is answered 500, the admin's retry 204.
    const hooks = await receiver((n) => ({ status: n === 0 ? 500 : 204 }));
    const { id } = await admin.register(hooks.url);
    const none = { attempts: 0, delivered: 0, successRate: null, lastOutcome: null, lastAttemptAt: null };
    expect((await read(id)).deliveryStats).toEqual(none);
    expect((await listed(id))?.deliveryStats).toEqual(none);

    expect((await admin.post(`/webhooks/${id}/test`, { eventType: 'order.created' })).status).toBe(202);
    await hooks.waitFor((all) => all.length >= 1);
    await expect
      .poll(async () => (await read(id)).deliveryStats.attempts, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const [failed] = await admin.attempts(id);
    expect(failed).toMatchObject({ outcome: 'failed', statusCode: 500 });
    expect((await read(id)).deliveryStats).toEqual({
      attempts: 1,
      delivered: 0,
      successRate: 0,
      lastOutcome: 'failed',
      lastAttemptAt: failed!.attemptedAt,
    });

    const retried = await admin.post(`/webhooks/${id}/deliveries/${failed!.deliveryId}/retry`);
    expect(retried.status).toBe(202);
    await hooks.waitFor((all) => all.length >= 2);
    await expect.poll(async () => (await read(id)).deliveryStats.attempts, { timeout: 10_000 }).toBe(2);
    const [delivered] = await admin.attempts(id);
    expect(delivered).toMatchObject({ outcome: 'delivered', statusCode: 204 });
    const stats = {
      attempts: 2,
      delivered: 1,
      successRate: 0.5,
      lastOutcome: 'delivered',
      lastAttemptAt: delivered!.attemptedAt,
    };
    expect((await read(id)).deliveryStats).toEqual(stats);
    expect((await listed(id))?.deliveryStats).toEqual(stats);
  });
});
