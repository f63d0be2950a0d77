import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsRoutes } from '../../infrastructure/http/metrics-routes.ts';
import { startTestApp } from '../support/test-app.ts';

type Received = { method: string; url: string; headers: IncomingHttpHeaders };

const projectionsText = '# TYPE kafka_relay_lag_events gauge\nkafka_relay_lag_events 3\n';

/**
 * GET /metrics?process={name}: the distributed mode's query API serves the projections process's and the
 * webhook dispatcher's metrics for the console's health view. Here between a client and stand-ins for those
 * processes that record what reaches them and answer as told, on real HTTP.
 */
describe('the metrics of other processes, served as GET /metrics?process={name}', () => {
  const received: Received[] = [];
  /** How the stand-in answers GET /metrics, by the path it is reached under. */
  const answers: Record<string, (response: ServerResponse) => void> = {
    '/projections/metrics': (response) =>
      response
        .writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4', 'Set-Cookie': 'not=forwarded' })
        .end(projectionsText),
    '/failing/metrics': (response) => response.writeHead(500).end('internal details of the failure'),
    '/moved/metrics': (response) =>
      response.writeHead(302, { Location: 'http://elsewhere.example/metrics' }).end(),
    '/huge/metrics': (response) => response.writeHead(200).end('x'.repeat(2048)),
    '/silent/metrics': () => undefined, // never answers
  };
  const standIn = createServer((request, response) => {
    received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    (answers[request.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(response);
  });
  let base: string;
  let app: Awaited<ReturnType<typeof startTestApp>>;
  let time = 0;
  const read = (name: string, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/metrics?process=${encodeURIComponent(name)}`, { headers });

  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
    // A port nothing listens on: a server that was closed.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const registry = new Registry();
    app = await startTestApp([
      metricsRoutes(registry, {
        peers: {
          projections: `${base}/projections/`,
          failing: `${base}/failing`,
          moved: `${base}/moved`,
          huge: `${base}/huge`,
          silent: `${base}/silent`,
          down: `http://127.0.0.1:${closedPort}`,
        },
        // The clock stands still unless the test moves it: every read within one instant is shared.
        peerOptions: { timeoutMs: 300, maxBytes: 1024, now: () => time },
      }),
    ]);
  });
  afterAll(async () => {
    await app?.close();
    standIn.closeAllConnections();
    await new Promise<void>((resolve) => standIn.close(() => resolve()));
  });

  it("serves another process's metrics as it answered them, never stored, asking it with no credentials", async () => {
    const answer = await read('projections', { Authorization: 'Bearer token-1', Cookie: 'session=1' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect(await answer.text()).toBe(projectionsText);
    const asked = received.at(-1)!;
    expect(asked).toMatchObject({ method: 'GET', url: '/projections/metrics' });
    expect(asked.headers['authorization']).toBeUndefined();
    expect(asked.headers['cookie']).toBeUndefined();
    // Without `process`, the process's own metrics, as before.
    const own = await fetch(`${app.url}/metrics`);
    expect(own.status).toBe(200);
    expect(await own.text()).not.toContain('kafka_relay_lag_events');
  });

  it('asks the other process once however many ask it at once, and again only after a while', async () => {
    time += 1_000;
    const before = received.length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => read('projections')));
    expect(answers.map(({ status }) => status)).toEqual(Array(20).fill(200));
    expect(await answers[19]!.text()).toBe(projectionsText);
    expect(received.length - before).toBe(1);
    expect((await read('projections')).status).toBe(200);
    expect(received.length - before).toBe(1);
    time += 200;
    expect((await read('projections')).status).toBe(200);
    expect(received.length - before).toBe(2);
  });

  it('answers 404 for a process it was not told of', async () => {
    for (const name of ['command-api', 'constructor', '__proto__', '']) {
      const answer = await read(name);
      expect(answer.status, name).toBe(404);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect((await fetch(`${app.url}/metrics?process=projections&process=failing`)).status).toBe(404);
  });

  it('answers 503 in words when the other process is down, fails, redirects, says too much or is silent; never its address', async () => {
    const cases: [string, RegExp][] = [
      ['down', /^The down process could not be reached\.$/],
      ['failing', /^The failing process answered its metrics with status 500\.$/],
      ['moved', /^The moved process answered its metrics with status 302\.$/],
      ['huge', /^The huge process answered more than 1024 bytes\.$/],
      ['silent', /^The silent process did not answer within 300 ms\.$/],
    ];
    for (const [name, detail] of cases) {
      const answer = await read(name);
      expect(answer.status, name).toBe(503);
      expect(answer.headers.get('retry-after'), name).toBe('5');
      expect(answer.headers.get('cache-control'), name).toBe('no-store');
      const text = await answer.text();
      expect((JSON.parse(text) as { detail: string }).detail, name).toMatch(detail);
      expect(text, name).not.toContain('127.0.0.1');
      expect(text, name).not.toContain('internal details');
      expect(text, name).not.toContain('elsewhere.example');
    }
    expect(received.some(({ url }) => url.includes('elsewhere'))).toBe(false);
  });

  it('evaluates If-Match only for the metrics it would serve: a 404 or a 503 says what it says (RFC 9110, 13.2.1)', async () => {
    const precondition = { 'If-Match': '"no-such-version"' };
    expect((await read('command-api', precondition)).status).toBe(404);
    time += 1_000;
    expect((await read('down', precondition)).status).toBe(503);
    expect((await read('projections', precondition)).status).toBe(412);
    expect((await read('projections', { 'If-Match': '*' })).status).toBe(200);
  });

  it('is not there on a process told of no other', async () => {
    const plain = await startTestApp([]);
    try {
      expect((await fetch(`${plain.url}/metrics?process=projections`)).status).toBe(404);
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(200);
    } finally {
      await plain.close();
    }
  });
});
