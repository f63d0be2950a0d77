import CachePolicy from 'http-cache-semantics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.ts';

// Our responses, fed to a real HTTP cache implementation, in shared (CDN, proxy) and private (browser) mode.
let service: TestService;
let auth: Record<string, string>;
beforeAll(async () => {
  service = await startTestService();
  auth = (await service.signIn(['customer'])).auth;
});
afterAll(() => service.stop());

const exchange = async (
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) => {
  const request = { url: path, method: init.method ?? 'GET', headers: lowerCase(init.headers ?? {}) };
  const response = await fetch(`${service.url}${path}`, init);
  return { request, response: { status: response.status, headers: Object.fromEntries(response.headers) } };
};
const lowerCase = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

/** Fresh for `seconds`, give or take the moment the test took to ask. */
const freshFor = (seconds: number) => ({
  asymmetricMatch: (ttl: number) => ttl <= seconds * 1000 && ttl > (seconds - 2) * 1000,
  toString: () => `about ${seconds} s`,
});

const policies = async (path: string, init?: Parameters<typeof exchange>[1]) => {
  const { request, response } = await exchange(path, init);
  return {
    shared: new CachePolicy(request, response, { shared: true }),
    private: new CachePolicy(request, response, { shared: false }),
    request,
  };
};

describe('what real caches do with our responses', () => {
  it('a product detail: stored and fresh for 300 s in shared and private caches', async () => {
    const { shared, private: browser } = await policies('/products/1001');
    expect(shared.storable()).toBe(true);
    expect(shared.timeToLive()).toEqual(freshFor(300));
    expect(browser.storable()).toBe(true);
    expect(browser.timeToLive()).toEqual(freshFor(300));
  });

  it('the product list: 60 s in shared caches; private caches revalidate', async () => {
    const { shared, private: browser } = await policies('/products');
    expect(shared.storable()).toBe(true);
    expect(shared.timeToLive()).toEqual(freshFor(60));
    expect(browser.timeToLive()).toBe(0);
  });

  it('categories: an hour everywhere', async () => {
    const { shared, private: browser } = await policies('/categories');
    expect(shared.timeToLive()).toEqual(freshFor(3600));
    expect(browser.timeToLive()).toEqual(freshFor(3600));
  });

  it('revalidates a stale copy with If-None-Match and keeps it on 304', async () => {
    const { shared, request } = await policies('/products');
    const revalidation = shared.revalidationHeaders(request);
    expect(revalidation['if-none-match']).toMatch(/^"/);
    const { response } = await exchange('/products', { headers: revalidation as Record<string, string> });
    expect(response.status).toBe(304);
    const { modified, policy } = shared.revalidatedPolicy({ ...request, headers: revalidation }, response);
    expect(modified).toBe(false);
    expect(policy.timeToLive()).toEqual(freshFor(60));
  });

  it('private data (/users/me, /orders): never in a shared cache; a browser keeps it but revalidates each time', async () => {
    for (const path of ['/users/me', '/orders']) {
      const { shared, private: browser, request } = await policies(path, { headers: auth });
      expect(shared.storable(), path).toBe(false);
      expect(browser.storable(), path).toBe(true);
      expect(browser.satisfiesWithoutRevalidation(request), path).toBe(false);
    }
  });

  it('a POST answer is stored by nobody', async () => {
    const { shared, private: browser } = await policies('/auth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: 'a@b.c', password: 'x' }),
    });
    expect(shared.storable()).toBe(false);
    expect(browser.storable()).toBe(false);
  });
});
