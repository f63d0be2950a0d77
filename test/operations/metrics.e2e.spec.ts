import { register as globalRegistry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { orderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

/** The value of one sample of the Prometheus text, or undefined when there is no such line. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('GET /metrics (embedded default: every metric on its one port)', () => {
  let service: TestService;
  let receivers: Awaited<ReturnType<typeof startWebhookReceiver>>[];
  const scrape = async () => {
    const response = await fetch(`${service.url}/metrics`);
    expect(response.status).toBe(200);
    return { response, text: await response.text() };
  };

  beforeAll(async () => {
    service = await startTestService(
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '0' },
      { time: 'real' },
    );
    receivers = [
      await startWebhookReceiver(() => ({ status: 204 })),
      await startWebhookReceiver(() => ({ status: 500 })),
    ];
  });
  afterAll(async () => {
    await service.stop();
    for (const receiver of receivers) await receiver.stop();
  });

  it('serves the Prometheus text format, never stored, with the Node.js process metrics', async () => {
    const { response, text } = await scrape();
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
  });

  it('times requests by method, route pattern and status, never by raw path', async () => {
    const customer = await orderActor(service, ['customer']);
    const { order, consistencyToken } = await customer.placeOrder();
    expect(
      (await customer.get(`/orders/${order.id}`, { 'Consistency-Token': consistencyToken })).status,
    ).toBe(200);
    expect((await fetch(`${service.url}/no-such-thing/${order.id}`)).status).toBe(404);

    const { text } = await scrape();
    expect(
      sample(text, 'http_request_duration_seconds_count{method="GET",route="/orders/:orderId",status="200"}'),
    ).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count{method="POST",route="/orders",status="201"}'),
    ).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}'),
    ).toBe(1);
    expect(text).not.toContain(order.id);
    expect(text).not.toContain('no-such-thing');
    expect(sample(text, 'events_appended_total{type="OrderPlaced"}')).toBe(1);
  });

  it('reports how far each read model and the relay trail the log', async () => {
    await vi.waitFor(
      async () => {
        const { text } = await scrape();
        expect(sample(text, 'projection_lag_events{projection="orders"}')).toBe(0);
        expect(sample(text, 'projection_lag_events{projection="webhook-subscriptions"}')).toBe(0);
        expect(sample(text, 'kafka_relay_lag_events')).toBe(0);
      },
      { timeout: 10_000, interval: 20 },
    );
  });

  it('counts webhook delivery attempts by outcome', async () => {
    const admin = await webhookAdmin(service);
    const [succeeding, failing] = receivers as [(typeof receivers)[0], (typeof receivers)[0]];
    const good = await admin.register(succeeding.url, ['payment.received']);
    const bad = await admin.register(failing.url, ['payment.received']);
    expect((await admin.post(`/webhooks/${good.id}/test`)).status).toBe(202);
    expect((await admin.post(`/webhooks/${bad.id}/test`)).status).toBe(202);
    // One retry (WEBHOOK_RETRY_SCHEDULE=0): the failing receiver's second attempt dead-letters it.
    await vi.waitFor(
      async () => {
        const { text } = await scrape();
        expect(sample(text, 'webhook_deliveries_total{outcome="succeeded"}')).toBe(1);
        expect(sample(text, 'webhook_deliveries_total{outcome="failed"}')).toBe(1);
        expect(sample(text, 'webhook_deliveries_total{outcome="dead-lettered"}')).toBe(1);
      },
      { timeout: 10_000, interval: 20 },
    );
    const { text } = await scrape();
    expect(sample(text, 'events_appended_total{type="WebhookSubscriptionRegistered"}')).toBe(2);
  });

  it("keeps every metric in the service's own registry, none in prom-client's global one", async () => {
    expect(globalRegistry.getMetricsAsArray()).toEqual([]);
  });
});
