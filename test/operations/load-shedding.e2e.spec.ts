import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { createHttpApp } from '../../infrastructure/http/create-app.ts';
import { healthRoutes } from '../../infrastructure/http/health-routes.ts';
import { listen } from '../../infrastructure/http/listen.ts';
import { neverShedPaths, startLoadShedding } from '../../infrastructure/http/load-shedding.ts';
import { createRouter } from '../../infrastructure/http/router.ts';
import { createReadiness } from '../../infrastructure/operations/readiness.ts';
import { createServiceDocument } from '../../openapi/service-document.ts';
import { postJson, problemOf } from '../support/http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

// Load shedding of the HTTP stack (infrastructure/http/load-shedding.ts), with tiny limits: past a bound a
// request is answered at once with 503 overloaded and Retry-After, before its body is read or its token
// checked; /health, /ready and /metrics always answer. The full-size test is test/faults/overload.

const services: TestService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
});
const start = async (env: Record<string, string>) => {
  const service = await startTestService(env);
  services.push(service);
  return service;
};

const metric = async (service: TestService, line: RegExp) => {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return Number(
    text
      .split('\n')
      .find((candidate) => line.test(candidate))
      ?.split(' ')
      .at(-1),
  );
};

/** Polls `condition` every 50 ms until it holds; fails after `timeoutMs`. */
const until = async (what: string, condition: () => Promise<boolean>, timeoutMs = 5000) => {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const expectOverloaded = async (response: Response) => {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(await problemOf(response)).toMatchObject({
    type: 'https://orders.example/problems/overloaded',
    title: 'Service Unavailable',
    status: 503,
  });
};

/** A POST /orders whose body has not all arrived: the service holds it in flight until `finish`. */
const heldRequest = (url: string, localAddress?: string) => {
  const body = '{"items":[],"a":"b"}';
  const outgoing = httpRequest(`${url}/orders`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
    ...(localAddress === undefined ? {} : { localAddress }),
  });
  const answered = new Promise<number>((resolve, reject) => {
    outgoing.on('response', (incoming) => {
      incoming.resume();
      incoming.on('end', () => resolve(incoming.statusCode ?? 0));
    });
    outgoing.on('error', reject);
  });
  outgoing.write(body.slice(0, 9));
  return {
    finish: () => {
      outgoing.end(body.slice(9));
      return answered;
    },
  };
};

describe('load shedding (embedded default, tiny limits)', () => {
  it('refuses a client address its requests beyond HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT with 429, and only that address', async () => {
    const service = await start({ HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: '2' });
    const held = [heldRequest(service.url, '127.0.0.2'), heldRequest(service.url, '127.0.0.2')];
    await until(
      'two requests in flight',
      async () => (await metric(service, /^http_requests_in_flight /)) === 2,
    );
    const third = heldRequest(service.url, '127.0.0.2');
    expect(await third.finish()).toBe(429);
    // Another address is not held back by this one.
    expect((await fetch(`${service.url}/products/1001`)).status).toBe(200);
    expect(await metric(service, /^http_requests_shed_total\{reason="per-client"\}/)).toBe(1);
    expect(await Promise.all(held.map((request) => request.finish()))).toEqual([401, 401]);
    const refused = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        const blockers = [heldRequest(service.url, '127.0.0.3'), heldRequest(service.url, '127.0.0.3')];
        void until(
          'two more in flight',
          async () => (await metric(service, /^http_requests_in_flight /)) === 2,
        ).then(() => {
          httpRequest(`${service.url}/products/1001`, { localAddress: '127.0.0.3' }, (incoming) => {
            let body = '';
            incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
            incoming.on('end', () => {
              void Promise.all(blockers.map((b) => b.finish())).then(() =>
                resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }),
              );
            });
          })
            .on('error', reject)
            .end();
        }, reject);
      },
    );
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({
      type: 'https://orders.example/problems/rate-limited',
      status: 429,
      detail: 'You have too many requests under way at once. Retry after the seconds in Retry-After.',
    });
  });

  it('answers 408 and closes the connection when a body does not arrive within HTTP_BODY_TIMEOUT_MS', async () => {
    const service = await start({ HTTP_BODY_TIMEOUT_MS: '300' });
    const started = performance.now();
    const answer = await new Promise<{ status: number; body: string; connection: unknown }>((resolve) => {
      const outgoing = httpRequest(`${service.url}/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': '100' },
      });
      outgoing.on('response', (incoming) => {
        let body = '';
        incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, body, connection: incoming.headers.connection }),
        );
      });
      outgoing.on('error', () => undefined);
      outgoing.write('{"items":');
    });
    expect(answer.status).toBe(408);
    expect(answer.connection).toBe('close');
    expect(JSON.parse(answer.body)).toMatchObject({
      type: 'https://orders.example/problems/request-timeout',
      status: 408,
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    // A body that does arrive in time is read as usual.
    const quick = await postJson(`${service.url}/orders`, { items: [] });
    expect(quick.status).toBe(401);
  });

  it('refuses uploads beyond half of HTTP_MAX_REQUESTS_IN_FLIGHT at once, before reading a body or a token; stalled uploads never block other requests', async () => {
    const service = await start({ HTTP_MAX_REQUESTS_IN_FLIGHT: '4' });
    const held = [heldRequest(service.url), heldRequest(service.url)];
    await until(
      'two uploads in flight',
      async () => (await metric(service, /^http_requests_in_flight /)) === 2,
    );

    // Malformed JSON and no token: refused as overloaded, not 400 or 401, so neither was looked at.
    await expectOverloaded(
      await fetch(`${service.url}/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"items": [',
      }),
    );
    // A request with all it needs is not held back by the stalled ones.
    expect((await fetch(`${service.url}/products/1001`)).status).toBe(200);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    expect(await metric(service, /^http_requests_shed_total\{reason="uploads"\}/)).toBe(1);
    expect(await metric(service, /^http_requests_shed_total\{reason="in-flight"\}/)).toBe(0);

    // The held requests go on as usual (no token: 401), and the service admits uploads again.
    expect(await Promise.all(held.map((request) => request.finish()))).toEqual([401, 401]);
    const customer = await service.signIn(['customer']);
    const address = await postJson(
      `${service.url}/users/me/addresses`,
      { street: '1 Rue de Rivoli', city: 'Paris', postalCode: '75001', country: 'FR' },
      customer.auth,
    );
    expect(address.status).toBe(201);
  });

  it('refuses requests beyond HTTP_MAX_REQUESTS_IN_FLIGHT at once; /health, /ready and /metrics still answer', async () => {
    // The shared stack around a route that waits until the test lets it answer: two such in flight.
    const gate = Promise.withResolvers<void>();
    const router = createRouter();
    router.get('/slow', async (_request, response) => {
      await gate.promise;
      response.json({ done: true });
    });
    const metrics = new Registry();
    const shedding = startLoadShedding({
      config: { maxRequestsInFlight: 2, maxRequestsInFlightPerClient: 0, maxEventLoopDelayMs: 0 },
      errorTypeBase: 'https://orders.example/problems',
      metrics,
    });
    const app = await listen(
      createHttpApp({
        problems: { errorTypeBase: 'https://orders.example/problems', realm: 'order-service' },
        logger: pino({ level: 'silent' }),
        routers: [healthRoutes(), router],
        metrics,
        readiness: createReadiness({ checks: {}, timeoutMs: 1000 }),
        loadShedding: shedding.middleware,
      }),
      0,
      '127.0.0.1',
    );
    try {
      const slow = [fetch(`${app.url}/slow`), fetch(`${app.url}/slow`)];
      await until('two requests in flight', async () => {
        const text = await (await fetch(`${app.url}/metrics`)).text();
        return /^http_requests_in_flight 2$/m.test(text);
      });
      await expectOverloaded(await fetch(`${app.url}/slow`));
      expect((await fetch(`${app.url}/health`)).status).toBe(200);
      expect((await fetch(`${app.url}/ready`)).status).toBe(200);
      gate.resolve();
      expect((await Promise.all(slow)).map((response) => response.status)).toEqual([200, 200]);
      expect((await fetch(`${app.url}/slow`)).status).toBe(200);
    } finally {
      shedding.stop();
      await app.close();
    }
  });

  it('refuses requests while the event loop runs later than HTTP_MAX_EVENT_LOOP_DELAY_MS, and admits them again once it is on time', async () => {
    // The service runs in this test's process: keeping the loop busy here makes the service's loop late.
    // Overload as the loop sees it: every turn takes 200 ms (a busy stretch of this test between its
    // requests), window after window, until the service refuses one.
    const service = await start({ HTTP_MAX_EVENT_LOOP_DELAY_MS: '100' });
    const deadline = performance.now() + 10_000;
    let refused: Response | undefined;
    while (refused === undefined) {
      const busyUntil = performance.now() + 200;
      while (performance.now() < busyUntil);
      const response = await fetch(`${service.url}/products/1001`);
      if (response.status === 503) refused = response;
      else {
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      if (performance.now() > deadline) throw new Error('no request refused in 10 s of a late event loop');
    }
    await expectOverloaded(refused);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    expect(await metric(service, /^http_requests_shed_total\{reason="event-loop-delay"\}/)).toBeGreaterThan(
      0,
    );

    // Half a second later, the loop measured on time again: admitted.
    await until('an admitted request', async () => {
      const response = await fetch(`${service.url}/products/1001`);
      await response.arrayBuffer();
      return response.status === 200;
    });
  });
});

describe('the overloaded problem in the OpenAPI document', () => {
  const document = createServiceDocument({
    baseUrl: 'https://shop.example',
    docsUrl: 'https://shop.example/docs',
    errorTypeBase: 'https://shop.example/problems',
    realm: 'order-service',
  }) as unknown as {
    paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
  };

  it('is documented as a 503 of every operation but /health, /ready and /metrics', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.length).toBeGreaterThan(30);
    for (const { path, method, operation } of operations) {
      const documented = operation.responses['503']?.description ?? '';
      if (neverShedPaths.includes(path)) expect(documented, `${method} ${path}`).not.toContain('/overloaded');
      else expect(documented, `${method} ${path}`).toContain('https://shop.example/problems/overloaded');
    }
  });
});
