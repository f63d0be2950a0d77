import { connect, type Socket } from 'node:net';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listening } from '../../infrastructure/http/listen.ts';
import { problemOf } from '../support/http.ts';
import { startTestApp } from '../support/test-app.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const cacheControlOf = async (path: string, method = 'GET') =>
  (await fetch(`${service.url}${path}`, { method })).headers.get('cache-control');

describe('the Cache-Control rules of docs/caching.md, on every response, errors included', () => {
  it('rule 1: a method other than GET and HEAD is never stored, whatever the path', async () => {
    expect(await cacheControlOf('/products', 'POST')).toBe('no-store');
    expect(await cacheControlOf('/products/1001', 'DELETE')).toBe('no-store');
    expect(await cacheControlOf('/auth/token', 'POST')).toBe('no-store');
  });

  it('rule 2: /auth/, /users/me and /orders are private, no-cache, errors too', async () => {
    expect(await cacheControlOf('/users/me')).toBe('private, no-cache');
    expect(await cacheControlOf('/orders')).toBe('private, no-cache');
    expect(await cacheControlOf('/orders/whatever')).toBe('private, no-cache');
    expect(await cacheControlOf('/auth/token')).toBe('private, no-cache');
  });

  it('rule 3: /products, /categories, /search default to public, s-maxage=300 where the handler chose nothing', async () => {
    // A 404 too: it answers the URL, and an import that adds the product purges it (Surrogate-Key).
    expect(await cacheControlOf('/products/999999')).toBe('public, s-maxage=300');
    expect(await cacheControlOf('/categories/toys')).toBe('public, s-maxage=300');
    // ... and keep what the handler chose
    expect(await cacheControlOf('/products')).toBe('public, s-maxage=60');
    expect(await cacheControlOf('/categories')).toBe('public, max-age=3600');
    expect(await cacheControlOf('/search?q=a')).toBe('private, no-cache');
  });

  it("a 412 on a public path is no-store: it answers the request's If-Match, not the URL", async () => {
    // Shared for 300 s, as rule 3 would have it, a cache keying on the URL alone (no Vary names If-Match)
    // could answer 412 to every later GET of the product: one bogus If-Match would hide it for 5 minutes.
    for (const path of ['/products/1001', '/products/1001/stock', '/products', '/categories']) {
      const response = await fetch(`${service.url}${path}`, { headers: { 'If-Match': '"no-such-version"' } });
      expect(response.status, path).toBe(412);
      expect(response.headers.get('cache-control'), path).toBe('no-store');
    }
    // The same resource, unconditional, keeps its own.
    expect(await cacheControlOf('/products/1001/stock')).toBe('public, max-age=30, s-maxage=30');
  });

  it('a 400 on a public path is no-store: a request may be refused for its headers, not its URL', async () => {
    // Shared for 300 s, a 400 would let one malformed request (two Host headers, say: the URL is fine) hide
    // the URL from everyone behind the cache for 5 minutes; an id that cannot be one costs nothing to refuse.
    for (const path of ['/products/not-a-number', '/products/0/stock', '/categories/Not_One', '/search']) {
      const response = await fetch(`${service.url}${path}`);
      expect(response.status, path).toBe(400);
      expect(response.headers.get('cache-control'), path).toBe('no-store');
    }
  });

  it('adds no Vary: nothing here negotiates its body', async () => {
    for (const path of ['/products', '/products/1001', '/categories', '/search?q=a', '/users/me']) {
      expect((await fetch(`${service.url}${path}`)).headers.get('vary')).toBeNull();
    }
  });

  describe('a 5xx', () => {
    let failing: Listening;
    beforeAll(async () => {
      const router = Router();
      router.get('/products/explode', () => {
        throw new Error('database password is hunter2');
      });
      failing = await startTestApp([router]);
    });
    afterAll(() => failing.close());

    it('is never stored by anyone, even on a public path, and discloses nothing', async () => {
      const response = await fetch(`${failing.url}/products/explode`);
      expect(response.status).toBe(500);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const problem = await problemOf(response);
      expect(problem).toEqual({
        type: 'https://orders.example/problems/internal',
        title: 'Internal Server Error',
        status: 500,
        detail: 'The server could not complete the request.',
        instance: '/products/explode',
      });
      expect(JSON.stringify(problem)).not.toContain('hunter2');
    });
  });
});

describe('answers for this client at this moment (408, 413, 429): never stored, whatever the path', () => {
  let limited: TestService;
  beforeAll(async () => {
    // One request under way per client address: a second one at the same time is answered 429.
    limited = await startTestService({ HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: '1' });
  });
  afterAll(() => limited.stop());

  /** A request whose body never comes: it holds this client's one slot in a process until it is cut. */
  const stalledUpload = (origin: string) =>
    new Promise<Socket>((resolve, reject) => {
      const { hostname, port } = new URL(origin);
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /products HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
            'Content-Length: 100\r\n\r\n{',
          () => resolve(socket),
        );
      });
      socket.on('error', reject);
    });

  it('a 429 on a catalogue path is no-store (a CDN would answer one client’s throttle to everyone), on a private one private, no-cache, no-store', async () => {
    const { auth } = await limited.signIn(['customer']);
    // Every API process (distributed: the command API and the query API, each directly) holds the slot.
    const held = await Promise.all(limited.apiOrigins().map(stalledUpload));
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const expected: Record<string, string> = {
        '/products': 'no-store',
        '/products/1001': 'no-store',
        '/products/1001/stock': 'no-store',
        '/categories': 'no-store',
        '/categories/kitchen': 'no-store',
        '/search?q=a': 'no-store',
        '/orders': 'private, no-cache, no-store',
        '/users/me': 'private, no-cache, no-store',
      };
      for (const [path, cacheControl] of Object.entries(expected)) {
        const response = await fetch(`${limited.url}${path}`, { headers: auth });
        expect(response.status, path).toBe(429);
        expect(response.headers.get('retry-after'), path).toBe('1');
        expect(response.headers.get('cache-control'), path).toBe(cacheControl);
        expect((await problemOf(response)).type, path).toMatch(/\/rate-limited$/);
      }
    } finally {
      for (const socket of held) socket.destroy();
    }
    // Once the stalled requests are gone, the client is served again, and the catalogue shared again.
    await expect
      .poll(async () => (await fetch(`${limited.url}/products/1001`)).headers.get('cache-control'))
      .toBe('public, max-age=300, s-maxage=300');
  });
});
