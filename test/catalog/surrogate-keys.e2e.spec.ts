import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const keyOf = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${service.url}${path}`, { headers });
  return { status: response.status, key: response.headers.get('surrogate-key') };
};

describe('Surrogate-Key on catalogue responses', () => {
  it.each([
    ['/products', 'products'],
    ['/products/1001', 'product-1001'],
    ['/products/1001/stock', 'product-1001'],
    ['/categories', 'categories'],
    ['/categories/coffee-tea', 'category-coffee-tea'],
    ['/search?q=cup', 'search'],
  ])('GET %s names %s, on the 200 and on the 304', async (path, key) => {
    const response = await fetch(`${service.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('surrogate-key')).toBe(key);
    const etag = response.headers.get('etag')!;
    expect(await keyOf(path, { 'If-None-Match': etag })).toEqual({ status: 304, key });
  });

  it('names the missing resource on a 404, so that adding it purges the cached answer', async () => {
    expect(await keyOf('/products/999999')).toEqual({ status: 404, key: 'product-999999' });
    expect(await keyOf('/products/999999/stock')).toEqual({ status: 404, key: 'product-999999' });
    expect(await keyOf('/categories/toys')).toEqual({ status: 404, key: 'category-toys' });
  });

  it('names nothing on a 400, which no change of the catalogue can change', async () => {
    expect(await keyOf('/products/abc')).toEqual({ status: 400, key: null });
    expect(await keyOf('/categories/Not%20An%20Id')).toEqual({ status: 400, key: null });
    expect(await keyOf('/search')).toEqual({ status: 400, key: null });
  });

  it('is absent from every response outside the catalogue', async () => {
    for (const path of ['/health', '/openapi.json', '/orders']) {
      expect((await fetch(`${service.url}${path}`)).headers.get('surrogate-key'), path).toBeNull();
    }
  });
});
