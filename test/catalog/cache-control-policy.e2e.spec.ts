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
    expect(await cacheControlOf('/products/not-a-number')).toBe('public, s-maxage=300');
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
