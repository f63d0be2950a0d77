import autocannon from 'autocannon';
import { afterAll, describe, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { orderActor } from '../support/orders.ts';
import { percentile, report, startMeasuredService, type MeasuredService } from './measured-service.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';

// The embedded default (its own process, default limits) under 500 concurrent connections for 30 s, each
// cycling through POST /orders, GET /orders/{id} and GET /products/{id}: it must not crash, its answers
// must come in bounded time and memory, and whatever it refuses must be 503 overloaded with Retry-After.

const connections = 500;
const durationSeconds = 30;
/** A bound, not a benchmark: see the assertion. */
const p99BoundMs = 5000;
/** autocannon gives up on a request unanswered this long, and counts it as an error (asserted none). */
const answerBoundSeconds = 10;
const peakMemoryBoundMb = 1024;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type OrderPage = { data: { id: string }[]; links: { next: string | null } };

/** Checks that a refusal is load shedding's: 503 overloaded problem details with Retry-After: 1. */
const expectOverloaded = async (response: Response) => {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(await problemOf(response)).toMatchObject({
    type: 'https://orders.example/problems/overloaded',
    status: 503,
  });
};

/** A client that honours Retry-After: a 503 overloaded is checked, waited out and sent again. */
const patiently = async (send: () => Promise<Response>) => {
  for (;;) {
    const response = await send();
    if (response.status !== 503) return response;
    await expectOverloaded(response);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
};

describe('the embedded default under overload (its own process, default limits)', () => {
  let service: MeasuredService;

  it(`survives ${connections} connections for ${durationSeconds} s with bounded latency and memory, refusing only with 503 overloaded`, async () => {
    // LOG_LEVEL info: one log line per request admitted, as in production. The 500 connections stand for
    // 500 clients, which in production come from as many addresses; here all come from 127.0.0.1, so the
    // bounds per client address (64 requests, 256 connections: stalled-uploads.e2e.spec.ts) are lifted.
    service = await startMeasuredService({
      // One customer places orders as fast as it can: the service's overload is the subject, not its limit.
      ...loadTestWriteLimits,
      LOG_LEVEL: 'info',
      HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: '0',
      HTTP_MAX_CONNECTIONS_PER_CLIENT: '0',
    });
    cleanups.push(() => service.stop());
    const customer = await orderActor(service, ['customer']);
    const addressId = await customer.addAddress();
    const orderBody = JSON.stringify({
      items: [
        { productId: '1001', quantity: 2 },
        { productId: '1017', quantity: 1 },
      ],
      shippingAddressId: addressId,
    });
    const placeOrder = () =>
      fetch(`${service.url}/orders`, {
        method: 'POST',
        headers: { ...customer.auth, 'Content-Type': 'application/json' },
        body: orderBody,
      });
    const first = await placeOrder();
    expect(first.status).toBe(201);
    const knownOrder = ((await first.json()) as { id: string }).id;
    const acknowledged = new Set<string>([knownOrder]);
    const baseline = service.memory();
    report(
      `embedded default (pid ${service.pid}) with its default limits (HTTP_MAX_REQUESTS_IN_FLIGHT 1000, ` +
        `HTTP_MAX_EVENT_LOOP_DELAY_MS 200, HTTP_MAX_CONNECTIONS 10000), no bound per client address, per-user write limits out of the way, and LOG_LEVEL info; ` +
        `RSS ${baseline.rssMb.toFixed(0)} MB before the load`,
    );

    // While the load runs: memory sampled, GET /health timed, and a request of each kind sent with the
    // test's own contract-checked fetch, to see what a client sees: a 2xx, or 503 overloaded.
    let peakSampledMb = baseline.rssMb;
    const sampled = { answered: 0, refused: 0, healthMs: [] as number[] };
    let loading = true;
    const sampleWhileLoading = async () => {
      while (loading) {
        peakSampledMb = Math.max(peakSampledMb, service.memory().rssMb);
        const started = performance.now();
        const health = await fetch(`${service.url}/health`);
        expect(health.status).toBe(200);
        sampled.healthMs.push(performance.now() - started);
        for (const send of [
          placeOrder,
          () => fetch(`${service.url}/products/1001`),
          () => fetch(`${service.url}/orders/${knownOrder}`, { headers: customer.auth }),
        ]) {
          const response = await send();
          if (response.status === 503) {
            await expectOverloaded(response);
            sampled.refused++;
            continue;
          }
          expect(response.status).toBeLessThan(300);
          if (response.status === 201) acknowledged.add(((await response.json()) as { id: string }).id);
          else await response.arrayBuffer();
          sampled.answered++;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    let product = 0;
    const sampling = sampleWhileLoading();
    const result = await autocannon({
      url: service.url,
      connections,
      duration: durationSeconds,
      timeout: answerBoundSeconds,
      requests: [
        {
          method: 'POST',
          path: '/orders',
          headers: { ...customer.auth, 'Content-Type': 'application/json' },
          body: orderBody,
          onResponse: (status, body) => {
            if (status === 201) acknowledged.add((JSON.parse(body) as { id: string }).id);
          },
        },
        { method: 'GET', path: `/orders/${knownOrder}`, headers: customer.auth },
        {
          method: 'GET',
          setupRequest: (request) => ({ ...request, path: `/products/${1001 + (product++ % 60)}` }),
        },
      ],
    });
    loading = false;
    await sampling;

    const statuses = Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, Number(stats.count)]),
    );
    report(
      `autocannon: ${connections} connections for ${durationSeconds} s, each cycling POST /orders, GET /orders/{id} ` +
        `and GET /products/{id}: ${result.requests.total} answers (${Math.round(result.requests.average)}/s), ` +
        `statuses ${JSON.stringify(statuses)}, ${result.errors} errors (${result.timeouts} timeouts); ` +
        `latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    );
    report(
      `sampled meanwhile with fetch: ${sampled.answered} answered, ${sampled.refused} refused, each refusal ` +
        `checked as 503 overloaded problem details with Retry-After: 1; GET /health answered 200 every time ` +
        `(${sampled.healthMs.length} probes, p99 ${Math.round(percentile(sampled.healthMs, 99))} ms, slowest ` +
        `${Math.round(Math.max(...sampled.healthMs))} ms)`,
    );

    // Alive, and answering.
    expect(service.alive()).toBe(true);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    // No connection dropped and no request left unanswered (autocannon counts both, and requests it gave
    // up on after answerBoundSeconds, as errors): every request got an HTTP answer within that bound. This
    // includes each connection's first request, sent as all 500 connect at once: with one listening socket,
    // accepting one connection per turn of a busy event loop, the last of them waited up to 20 s
    // (infrastructure/http/listen.ts).
    expect(result.errors).toBe(0);
    // Every answer that was not a success is a 503 (its shape checked on the samples above).
    for (const status of Object.keys(statuses)) expect(['200', '201', '503']).toContain(status);
    // Latency bounded: 500 clients queued on two cores (shared with autocannon) wait their turn; 5 s means
    // the process kept up or refused at once instead of letting a queue grow without limit (which would
    // run into autocannon's 10 s timeout). A bound, not a speed benchmark: p99 is a few hundred ms here.
    expect(result.latency.p99).toBeLessThan(p99BoundMs);

    const memory = service.memory();
    report(
      `service memory: RSS ${baseline.rssMb.toFixed(0)} MB before the load, highest sampled ` +
        `${peakSampledMb.toFixed(0)} MB, high-water mark (VmHWM) ${memory.peakMb.toFixed(0)} MB; bound ${peakMemoryBoundMb} MB`,
    );
    // Memory bounded: the V8 heap grows lazily under this allocation rate (a few hundred MB, most of it
    // garbage: capped at 100 MB of old space, the same load runs in about 320 MB of RSS), and SQLite's page
    // caches take up to 64 MB per database. A process that queued requests or kept what it served would
    // grow past 1 GB.
    expect(memory.peakMb).toBeLessThan(peakMemoryBoundMb);

    // Every order acknowledged with 201 is there: the customer's listing, page by page, read again until
    // it holds them all (the read model may trail the log for a moment after the load).
    const listed = new Set<string>();
    const listAll = async () => {
      listed.clear();
      for (let path: string | null = '/orders?cursor=&perPage=100'; path !== null;) {
        const pagePath: string = path;
        const response = await patiently(() =>
          fetch(`${service.url}${pagePath}`, { headers: customer.auth }),
        );
        expect(response.status).toBe(200);
        const page = (await response.json()) as OrderPage;
        for (const order of page.data) listed.add(order.id);
        path = page.links.next;
      }
      return [...acknowledged].filter((id) => !listed.has(id));
    };
    const deadline = performance.now() + 15_000;
    let missing = await listAll();
    while (missing.length > 0 && performance.now() < deadline) missing = await listAll();
    report(
      `${acknowledged.size} orders acknowledged with 201; the customer's listing holds ${listed.size} ` +
        `(more: placed, but their answer came after the load ended), ${missing.length} acknowledged missing`,
    );
    expect(missing).toEqual([]);

    const shed = (await (await patiently(() => fetch(`${service.url}/metrics`))).text())
      .split('\n')
      .filter((line) => line.startsWith('http_requests_shed_total'));
    report(`shed, by the service's metrics: ${shed.join(', ')}`);
    expect(service.errors).toEqual([]);
    const code = await service.stop();
    report(
      `no line logged at level error (${service.logLines()} log lines); stopped with SIGTERM: exit ${code}`,
    );
    expect(code).toBe(0);
  });
});
