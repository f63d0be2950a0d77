import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedTestService } from '../support/distributed-service.ts';
import { orderActor } from '../support/orders.ts';
import type { ServiceName } from '../support/service-process.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';

// GET /ready and GET /metrics of each process of the distributed mode, on FerretDB and Kafka.

type Service = Awaited<ReturnType<typeof startDistributedTestService>>;
type Readiness = { status?: string; checks: Record<string, { status: string; detail?: string }> };

const report = (text: string) => process.stdout.write(`  [operations] ${text}\n`);
const services = async (command: 'kafka-stop' | 'kafka-start') => {
  await promisify(execFile)('scripts/services.sh', [command], { timeout: 120_000 });
};
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/**
 * The stores each process checks (the command API would also check the directory of a node:sqlite log file,
 * which the distributed suites do not run on).
 */
const expectedChecks: Record<ServiceName, string[]> = {
  'command-api': ['eventLog', 'mongodb'],
  'query-api': ['eventLog', 'mongodb', 'projections'],
  projections: ['eventLog', 'mongodb', 'kafka', 'projections'],
  'webhook-dispatcher': ['eventLog', 'mongodb', 'kafka'],
};

describe('operations endpoints of the distributed processes', () => {
  let service: Service;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let kafkaStopped = false;
  const ready = async (name: ServiceName) => {
    const started = performance.now();
    const response = await fetch(`${service.processes.urlOf(name)}/ready`);
    return {
      status: response.status,
      ms: performance.now() - started,
      body: (await response.json()) as Readiness,
      retryAfter: response.headers.get('retry-after'),
    };
  };
  const metrics = async (name: ServiceName) => {
    const response = await fetch(`${service.processes.urlOf(name)}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return response.text();
  };

  beforeAll(async () => {
    service = await startDistributedTestService(
      { ...loadTestWriteLimits, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
      { time: 'real' },
    );
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    if (kafkaStopped) await services('kafka-start');
    await receiver.stop();
    await service.stop();
  });

  it('each process is ready, with a check per store it uses', async () => {
    for (const name of Object.keys(expectedChecks) as ServiceName[]) {
      const { status, body } = await ready(name);
      expect({ name, status }).toEqual({ name, status: 200 });
      expect(body.status).toBe('ready');
      expect(Object.keys(body.checks).sort()).toEqual([...expectedChecks[name]].sort());
      expect(Object.values(body.checks).every((check) => check.status === 'ok')).toBe(true);
    }
    report('all four processes answer GET /ready 200, each with the checks of the stores it uses');
  });

  it('each process serves its metrics: appends, lags, deliveries, requests by route', async () => {
    const customer = await orderActor(service, ['customer']);
    const { order, consistencyToken } = await customer.placeOrder();
    const admin = await webhookAdmin(service);
    const subscription = await admin.register(receiver.url, ['payment.received']);
    expect((await admin.post(`/webhooks/${subscription.id}/test`)).status).toBe(202);
    await receiver.waitFor((all) => all.length === 1, 30_000);
    expect(
      (await customer.get(`/orders/${order.id}`, { 'Consistency-Token': consistencyToken })).status,
    ).toBe(200);

    const command = await metrics('command-api');
    expect(sample(command, 'events_appended_total{type="OrderPlaced"}')).toBe(1);
    expect(
      sample(command, 'http_request_duration_seconds_count{method="POST",route="/orders",status="201"}'),
    ).toBe(1);
    const query = await metrics('query-api');
    expect(
      sample(
        query,
        'http_request_duration_seconds_count{method="GET",route="/orders/:orderId",status="200"}',
      ),
    ).toBe(1);
    expect(query).not.toContain(order.id);
    await expect
      .poll(async () => sample(await metrics('query-api'), 'projection_lag_events{projection="orders"}'))
      .toBe(0);
    await expect
      .poll(async () => {
        const text = await metrics('projections');
        return [
          sample(text, 'projection_lag_events{projection="orders"}'),
          sample(text, 'projection_lag_events{projection="webhook-subscriptions"}'),
          sample(text, 'kafka_relay_lag_events'),
        ];
      })
      .toEqual([0, 0, 0]);
    await expect
      .poll(async () =>
        sample(await metrics('webhook-dispatcher'), 'webhook_deliveries_total{outcome="succeeded"}'),
      )
      .toBe(1);
    for (const name of Object.keys(expectedChecks) as ServiceName[]) {
      expect(await metrics(name)).toContain('# TYPE process_resident_memory_bytes gauge');
    }
    report('metrics checked on each process: appends, request durations by route, lags, deliveries');
  });

  it('the processes on Kafka are not ready while it is stopped, answering within the check timeout', async () => {
    await services('kafka-stop');
    kafkaStopped = true;
    for (const name of ['projections', 'webhook-dispatcher'] as const) {
      const { status, ms, body, retryAfter } = await ready(name);
      expect({ name, status, retryAfter }).toEqual({ name, status: 503, retryAfter: '5' });
      expect(body.checks['kafka']?.status).toBe('failing');
      expect(body.checks['mongodb']).toEqual({ status: 'ok' });
      expect(ms).toBeLessThan(3000);
    }
    expect((await ready('command-api')).status).toBe(200);
    await services('kafka-start');
    kafkaStopped = false;
    for (const name of ['projections', 'webhook-dispatcher'] as const) {
      await expect.poll(async () => (await ready(name)).status, { timeout: 60_000, interval: 200 }).toBe(200);
    }
    report(
      'Kafka stopped: projections and dispatcher answered 503 (kafka failing) at once; ready again after',
    );
  }, 180_000);
});
