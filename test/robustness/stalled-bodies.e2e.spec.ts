import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResponses, type RawResponse } from '../support/raw-http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * Uploads that send their headers and the start of a body, then nothing, against every process that serves
 * the API (the embedded one; the command API and the query API of the distributed mode, each reached
 * directly), with small bounds: HTTP_BODY_TIMEOUT_MS, HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT and the upload
 * bound (half of HTTP_MAX_REQUESTS_IN_FLIGHT). A stalled body is answered 408 and its connection closed; one
 * address's requests beyond its bound get 429 while another address is served; uploads beyond their bound
 * get 503 at once, and requests that have all they need are not held back. The full-size test, 1,100
 * stalled uploads against the default bounds, is test/faults/stalled-uploads.e2e.spec.ts.
 */
const bodyTimeoutMs = 1_000;

type Stalled = { answer: Promise<RawResponse | undefined>; close: () => void };

/** A POST /orders from `from` that declares 1,000 bytes and sends 10; what the process answers, if anything. */
const stalledUpload = (origin: string, from: string): Stalled => {
  const { hostname, port } = new URL(origin);
  const socket = connect({ host: hostname, port: Number(port), localAddress: from });
  const chunks: Buffer[] = [];
  const answer = new Promise<RawResponse | undefined>((resolve) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks))[0]));
  });
  socket.on('connect', () =>
    socket.write(
      'POST /orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000\r\n\r\n{"items":[',
    ),
  );
  return { answer, close: () => socket.destroy() };
};

/** A GET from `from`, on a connection of its own: its status and body. */
const getFrom = (origin: string, path: string, from: string) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    httpRequest(`${origin}${path}`, { localAddress: from, agent: false }, (incoming) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
      incoming.on('end', () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }),
      );
    })
      .on('error', reject)
      .end();
  });

/** http_requests_in_flight of the process at `origin` (uploads whose body is still arriving included). */
const inFlight = async (origin: string) => {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith('http_requests_in_flight '));
  return Number(line?.split(' ').at(-1));
};

/** Polls until the process at `origin` counts `count` requests in flight; fails after `timeoutMs`. */
const untilInFlight = async (origin: string, count: number, timeoutMs = 5_000) => {
  const deadline = performance.now() + timeoutMs;
  while ((await inFlight(origin)) !== count) {
    if (performance.now() > deadline) throw new Error(`${origin}: never ${count} requests in flight`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const expectProblem = (response: RawResponse | undefined, status: number, kind: string) => {
  expect(response?.status).toBe(status);
  expect(response!.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(response!.body.toString())).toMatchObject({
    type: `https://orders.example/problems/${kind}`,
    status,
  });
};

/** The body deadline's own 408 (HTTP_BODY_TIMEOUT_MS), not Node's request timeout (twice as long). */
const expectBodyTimeout = (response: RawResponse | undefined) => {
  expectProblem(response, 408, 'request-timeout');
  expect(JSON.parse(response!.body.toString())).toMatchObject({
    detail: `The request body did not arrive within ${bodyTimeoutMs} ms.`,
  });
  expect(response!.headers['connection']).toBe('close');
};

describe('stalled bodies and one address’s share, on every API process', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({
      HTTP_BODY_TIMEOUT_MS: String(bodyTimeoutMs),
      HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: '2',
      // Half of it for bodies still arriving: two stalled uploads fill that bound.
      HTTP_MAX_REQUESTS_IN_FLIGHT: '4',
    });
  });
  afterAll(() => service.stop());

  it('a body that does not arrive within HTTP_BODY_TIMEOUT_MS is answered 408 and its connection closed', async () => {
    for (const origin of service.apiOrigins()) {
      const started = performance.now();
      const answer = await stalledUpload(origin, '127.0.0.4').answer;
      expectBodyTimeout(answer);
      expect(performance.now() - started).toBeGreaterThanOrEqual(bodyTimeoutMs);
      await untilInFlight(origin, 0);
    }
  });

  it('one address’s requests beyond its bound get 429 and uploads beyond theirs 503, at once; others are served, and the stalled ones end in 408', async () => {
    for (const origin of service.apiOrigins()) {
      // What this process answers a reader when nothing holds it back (the command API serves no products).
      const usual = (await getFrom(origin, '/products/1001', '127.0.0.3')).status;
      expect(usual).toBeLessThan(500);
      expect(usual).not.toBe(429);

      const stalled = [stalledUpload(origin, '127.0.0.2'), stalledUpload(origin, '127.0.0.2')];
      await untilInFlight(origin, 2);

      // The same address again: refused before any work, whatever it asks.
      const refused = await getFrom(origin, '/products/1001', '127.0.0.2');
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(JSON.parse(refused.body)).toMatchObject({
        type: 'https://orders.example/problems/rate-limited',
        status: 429,
      });
      // Another upload, from another address: the upload bound is full, so it is refused at once.
      const third = stalledUpload(origin, '127.0.0.3');
      expectProblem(await third.answer, 503, 'overloaded');
      // A request that has all it needs, from another address, is served as usual.
      expect((await getFrom(origin, '/products/1001', '127.0.0.3')).status).toBe(usual);

      // The stalled uploads are answered 408 once their time is up, and their address is admitted again.
      for (const upload of stalled) expectBodyTimeout(await upload.answer);
      await untilInFlight(origin, 0);
      expect((await getFrom(origin, '/products/1001', '127.0.0.2')).status).toBe(usual);
    }
  });
});
