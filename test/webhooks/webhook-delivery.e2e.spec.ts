import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { orderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import {
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

const forOrder = (orderId: string) => (request: ReceivedWebhook) =>
  (request.json.data['orderId'] ?? request.json.data['id']) === orderId;

const verify = (secret: string, request: ReceivedWebhook) =>
  new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });

describe('webhook delivery (embedded default, real receivers on loopback)', () => {
  let service: TestService;
  let admin: Awaited<ReturnType<typeof webhookAdmin>>;
  let customer: Awaited<ReturnType<typeof orderActor>>;
  let staff: Awaited<ReturnType<typeof orderActor>>;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...args: Parameters<typeof startWebhookReceiver>) => {
    const started = await startWebhookReceiver(...args);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    service = await startTestService(
      {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '300,300,300',
        WEBHOOK_TIMEOUT_MS: '1500',
      },
      { time: 'real' },
    );
    admin = await webhookAdmin(service);
    customer = await orderActor(service, ['customer']);
    staff = await orderActor(service, ['staff']);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await service.stop();
  });

  it('sends order.created, order.status_changed and payment.received, signed so that standardwebhooks verifies them', async () => {
    const hooks = await receiver();
    const { secret } = await admin.register(hooks.url);
    const { order } = await customer.placeOrder([{ productId: '1001', quantity: 2 }]);
    expect((await staff.post(`/orders/${order.id}/confirm`, {})).status).toBe(200);
    const paid = await staff.post(`/orders/${order.id}/payments`, {
      amount: { amount: 39.98, currency: 'EUR' },
      reference: 'bank-transfer-1',
    });
    expect(paid.status).toBe(200);

    const requests = (await hooks.waitFor((all) => all.filter(forOrder(order.id)).length === 3)).filter(
      forOrder(order.id),
    );
    expect(requests.map((r) => r.json.type)).toEqual([
      'order.created',
      'order.status_changed',
      'payment.received',
    ]);
    for (const request of requests) {
      expect(verify(secret, request)).toEqual(request.json);
      expect(request.headers['content-type']).toBe('application/json');
    }
    const [created, changed, payment] = requests.map((r) => r.json);
    expect(created!.data).toMatchObject({
      id: order.id,
      status: 'pending',
      total: { amount: 39.98, currency: 'EUR' },
    });
    expect(changed!.data).toMatchObject({
      orderId: order.id,
      from: 'pending',
      to: 'confirmed',
      order: { status: 'confirmed' },
    });
    expect(payment!.data).toMatchObject({
      orderId: order.id,
      payment: { amount: { amount: 39.98, currency: 'EUR' }, reference: 'bank-transfer-1' },
    });

    // webhook-id is the id of the event in the order's history; timestamp is when it happened.
    const history = (await (await staff.get(`/orders/${order.id}/events`)).json()) as {
      id: string;
      occurredAt: string;
    }[];
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual(history.map((event) => event.id));
    expect(requests.map((r) => r.json.timestamp)).toEqual(history.map((event) => event.occurredAt));
  });

  it('sends the cancellation of a paid order with refundDue, and a payment once whatever its retries', async () => {
    const hooks = await receiver();
    await admin.register(hooks.url);
    const { order } = await customer.placeOrder([{ productId: '1001', quantity: 2 }]);
    const payment = { amount: { amount: 20, currency: 'EUR' }, reference: 'bank-transfer-refund' };
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await staff.post(`/orders/${order.id}/payments`, payment)).status).toBe(200);
    }
    expect((await customer.post(`/orders/${order.id}/cancel`, { reason: 'too late' })).status).toBe(200);

    const requests = (await hooks.waitFor((all) => all.filter(forOrder(order.id)).length >= 3)).filter(
      forOrder(order.id),
    );
    expect(requests.map((r) => r.json.type)).toEqual([
      'order.created',
      'payment.received',
      'order.status_changed',
    ]);
    expect(requests[2]!.json.data).toMatchObject({
      orderId: order.id,
      from: 'pending',
      to: 'cancelled',
      order: { status: 'cancelled', refundDue: { amount: 20, currency: 'EUR' } },
    });
    // No late payment.received for the retries: the last webhook of the order is the cancellation.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.received.filter(forOrder(order.id))).toHaveLength(3);
  });

  it('delivers only the kinds a subscription asked for, and nothing from before it existed', async () => {
    const { order: earlier } = await customer.placeOrder();
    const hooks = await receiver();
    const { id } = await admin.register(hooks.url, ['order.status_changed']);
    const { order } = await customer.placeOrder();
    await staff.post(`/orders/${order.id}/confirm`, {});
    await staff.post(`/orders/${earlier.id}/confirm`, {});
    // Two orders: their events may arrive in either order (one order's events keep theirs).
    await hooks.waitFor((all) => all.some(forOrder(earlier.id)) && all.some(forOrder(order.id)));
    expect(hooks.received.map((r) => r.json.type)).toEqual(['order.status_changed', 'order.status_changed']);
    // An attempt is logged once its answer is in: just after the receiver saw the request.
    await expect.poll(async () => (await admin.attempts(id)).length).toBe(2);
  });

  it('retries a 500 with the same webhook-id and body, and logs both attempts', async () => {
    const hooks = await receiver((n) => (n === 0 ? { status: 500, body: 'database down' } : { status: 204 }));
    const { id } = await admin.register(hooks.url, ['order.created']);
    const { order } = await customer.placeOrder();
    const [first, second] = await hooks.waitFor((all) => all.length === 2);
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    expect(first!.body).toBe(second!.body);
    expect(first!.json.data['id']).toBe(order.id);
    await expect
      .poll(async () => (await admin.attempts(id)).map((a) => [a.attempt, a.statusCode, a.outcome]))
      .toEqual([
        [2, 204, 'delivered'],
        [1, 500, 'failed'],
      ]);
    expect((await admin.attempts(id))[1]).toMatchObject({
      responseBody: 'database down',
      deadLettered: false,
    });
  });

  it('keeps one order’s events in order for a subscriber while it retries', async () => {
    const hooks = await receiver((n) =>
      n === 0 ? { status: 503, headers: { 'Retry-After': '1' } } : { status: 200 },
    );
    await admin.register(hooks.url, ['order.created', 'order.status_changed']);
    const { order } = await customer.placeOrder();
    await staff.post(`/orders/${order.id}/confirm`, {});
    await staff.post(`/orders/${order.id}/ship`, {});
    const requests = await hooks.waitFor((all) => all.filter((r) => r.answeredWith === 200).length === 3);
    expect(requests.map((r) => [r.json.type, r.json.data['to'] ?? null, r.answeredWith])).toEqual([
      ['order.created', null, 503],
      ['order.created', null, 200],
      ['order.status_changed', 'confirmed', 200],
      ['order.status_changed', 'shipped', 200],
    ]);
  });

  it('does not let a receiver that never answers delay another subscriber', async () => {
    const silent = await receiver(() => 'hang');
    const prompt = await receiver();
    const { id: silentId } = await admin.register(silent.url, ['order.created']);
    await admin.register(prompt.url, ['order.created']);
    const { order } = await customer.placeOrder();
    await prompt.waitFor((all) => all.some(forOrder(order.id)));
    // The silent receiver holds its request open: no attempt of it has ended yet.
    expect(await silent.waitFor((all) => all.some(forOrder(order.id)))).toHaveLength(1);
    expect((await admin.attempts(silentId)).filter((a) => a.outcome === 'timeout')).toHaveLength(0);
    await expect
      .poll(async () => (await admin.attempts(silentId)).map((a) => a.outcome), { timeout: 5000 })
      .toContain('timeout');
  });

  it('disables a subscription whose receiver answers 410 Gone', async () => {
    const hooks = await receiver(() => ({ status: 410 }));
    const { id } = await admin.register(hooks.url, ['order.created']);
    await customer.placeOrder();
    await hooks.waitFor((all) => all.length === 1);
    await expect
      .poll(async () => (await (await admin.get(`/webhooks/${id}`)).json()) as { active: boolean })
      .toMatchObject({ active: false, disabledReason: 'The receiver answered 410 Gone.' });
    await customer.placeOrder();
    const attempts = await admin.attempts(id);
    expect(attempts.map((a) => [a.statusCode, a.outcome])).toEqual([[410, 'gone']]);
  });

  it('does not follow a redirect: 3xx is a failure and the redirect target receives nothing', async () => {
    const target = await receiver();
    const redirecting = await receiver(() => ({ status: 302, headers: { Location: target.url } }));
    const { id } = await admin.register(redirecting.url, ['order.created']);
    await customer.placeOrder();
    await redirecting.waitFor((all) => all.length === 2);
    expect(target.received).toHaveLength(0);
    expect((await admin.attempts(id)).at(-1)).toMatchObject({
      statusCode: 302,
      outcome: 'failed',
      error: 'redirects are not followed',
    });
  });

  it('dead-letters after the schedule, and delivers again when an admin retries', async () => {
    let failing = true;
    const hooks = await receiver(() => (failing ? { status: 500 } : { status: 200 }));
    const { id } = await admin.register(hooks.url, ['order.created']);
    await customer.placeOrder();
    await hooks.waitFor((all) => all.length === 4);
    await expect
      .poll(async () => (await admin.attempts(id))[0], { timeout: 5000 })
      .toMatchObject({ attempt: 4, deadLettered: true, nextAttemptAt: null });
    const [last] = await admin.attempts(id);
    failing = false;
    const retried = await admin.post(`/webhooks/${id}/deliveries/${last!.deliveryId}/retry`);
    expect(retried.status).toBe(202);
    const all = await hooks.waitFor((requests) => requests.length === 5);
    expect(all[4]!.headers['webhook-id']).toBe(all[0]!.headers['webhook-id']);
    await expect
      .poll(async () => (await admin.attempts(id))[0])
      // Its fifth attempt: the retry restarts the schedule, not the count (no two attempts share a number).
      .toMatchObject({ attempt: 5, outcome: 'delivered', deliveryId: last!.deliveryId });
  });

  it('sends a webhook.test event on request', async () => {
    const hooks = await receiver();
    const { id, secret } = await admin.register(hooks.url, ['payment.received']);
    const response = await admin.post(`/webhooks/${id}/test`);
    expect(response.status).toBe(202);
    const [request] = await hooks.waitFor((all) => all.length === 1);
    expect(request!.json).toMatchObject({ type: 'webhook.test', data: { subscriptionId: id } });
    expect(verify(secret, request!)).toEqual(request!.json);
  });
  // Last: it moves the clock a day on.
  it('signs with the new and the previous secret for a while after a rotation', async () => {
    const hooks = await receiver();
    const { id, secret: previous } = await admin.register(hooks.url, ['order.created']);
    const rotated = await admin.post(`/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const { secret: current, previousSecretExpiresAt } = (await rotated.json()) as {
      secret: string;
      previousSecretExpiresAt: string;
    };
    expect(current).toMatch(/^whsec_/);
    expect(current).not.toBe(previous);
    expect(Date.parse(previousSecretExpiresAt) - service.clock.now().getTime()).toBeGreaterThan(
      23 * 3_600_000,
    );
    await customer.placeOrder();
    const [request] = await hooks.waitFor((all) => all.length === 1);
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(current, request!)).toEqual(request!.json);
    expect(verify(previous, request!)).toEqual(request!.json);

    // A day later the previous secret signs no more (and the tokens of this suite have expired). The
    // service's clock moves, and so does this process's Date, which the receiver library checks against.
    const aDay = 24 * 3_600_000 + 1000;
    await service.clock.advance(aDay);
    vi.setSystemTime(Date.now() + aDay);
    try {
      await (await orderActor(service, ['customer'])).placeOrder();
      const later = (await hooks.waitFor((all) => all.length === 2))[1]!;
      expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verify(current, later)).toEqual(later.json);
      expect(() => verify(previous, later)).toThrow(/No matching signature/);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('webhook delivery across a restart', () => {
  it('delivers a delivery that was waiting to be retried when the process stopped', async () => {
    const service = await startTestService(
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1500' },
      { time: 'real' },
    );
    const hooks = await startWebhookReceiver((n) => (n === 0 ? { status: 500 } : { status: 200 }));
    try {
      const admin = await webhookAdmin(service);
      const customer = await orderActor(service, ['customer']);
      await admin.register(hooks.url, ['order.created']);
      await customer.placeOrder();
      await hooks.waitFor((all) => all.length === 1);
      await service.restart();
      const [failed, delivered] = await hooks.waitFor((all) => all.length === 2);
      expect(delivered!.answeredWith).toBe(200);
      expect(delivered!.headers['webhook-id']).toBe(failed!.headers['webhook-id']);
    } finally {
      await hooks.stop();
      await service.stop();
    }
  });
});
