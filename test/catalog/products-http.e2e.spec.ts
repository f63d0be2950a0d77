import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  // Refresh at once, so an import made in a test is served by the next request.
  service = await startTestService({ CATALOG_REFRESH_INTERVAL_MS: '0' });
});
afterAll(() => service.stop());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${service.url}${path}`, { method, headers });

/** A product of the demo catalogue, read straight from the store. */
const aProduct = async () => (await service.catalog.getProduct(1001))!;

describe('GET /products/{id}', () => {
  it('answers the product detail with a strong ETag of its bytes, Last-Modified and Cache-Control', async () => {
    const product = await aProduct();
    const response = await get('/products/1001');
    expect(response.status).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(JSON.parse(bytes.toString())).toEqual({
      id: 1001,
      name: product.name,
      price: product.priceMinor / 100,
      updatedAt: product.updatedAt,
    });
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(etag).toBe(`"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`);
    expect(response.headers.get('last-modified')).toBe(new Date(product.updatedAt).toUTCString());
    expect(response.headers.get('cache-control')).toBe('public, max-age=300, s-maxage=300');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('vary')).toBeNull();
  });

  describe('conditional requests (RFC 9110, section 13)', () => {
    let etag: string;
    let lastModified: string;
    beforeAll(async () => {
      const response = await get('/products/1001');
      etag = response.headers.get('etag')!;
      lastModified = response.headers.get('last-modified')!;
    });

    const expectNotModified = async (response: Response) => {
      expect(response.status).toBe(304);
      expect(await response.text()).toBe('');
      expect(response.headers.get('etag')).toBe(etag);
      expect(response.headers.get('last-modified')).toBe(lastModified);
      expect(response.headers.get('cache-control')).toBe('public, max-age=300, s-maxage=300');
      expect(response.headers.get('content-type')).toBeNull();
    };

    it('304 with the caching headers and no body when If-None-Match matches', async () => {
      await expectNotModified(await get('/products/1001', { 'If-None-Match': etag }));
    });

    it('compares weakly: W/ forms, lists and * match', async () => {
      await expectNotModified(await get('/products/1001', { 'If-None-Match': `W/${etag}` }));
      await expectNotModified(await get('/products/1001', { 'If-None-Match': `"other", W/"x", ${etag}` }));
      await expectNotModified(await get('/products/1001', { 'If-None-Match': '*' }));
    });

    it('200 when If-None-Match names other tags', async () => {
      expect((await get('/products/1001', { 'If-None-Match': '"stale"' })).status).toBe(200);
    });

    it('304 when not modified since Last-Modified, 200 when modified since', async () => {
      await expectNotModified(await get('/products/1001', { 'If-Modified-Since': lastModified }));
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
      expect((await get('/products/1001', { 'If-Modified-Since': earlier })).status).toBe(200);
    });

    it('ignores If-Modified-Since whenever If-None-Match is present', async () => {
      const response = await get('/products/1001', {
        'If-None-Match': '"stale"',
        'If-Modified-Since': lastModified,
      });
      expect(response.status).toBe(200);
    });

    it.each([
      ['an unquoted tag', () => ({ 'If-None-Match': etag.replaceAll('"', '') })],
      ['a broken list', () => ({ 'If-None-Match': `${etag}, "` })],
      ['a date that is no HTTP-date', () => ({ 'If-Modified-Since': 'yesterday' })],
      ['an ISO date', () => ({ 'If-Modified-Since': '2099-01-01T00:00:00Z' })],
    ])('answers %s with a correct unconditional 200', async (_case, headers) => {
      const response = await get('/products/1001', headers());
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe(etag);
    });

    it('detects a change within the same second: new ETag, same Last-Modified', async () => {
      // A product of its own, changed twice within one second (of its date, and of the imports' time).
      const second = Date.parse('2026-11-20T10:00:00.000Z');
      const product = { ...(await aProduct()), id: 9101 };
      const within = (ms: number, priceMinor: number) => ({
        ...product,
        priceMinor,
        updatedAt: new Date(second + ms).toISOString(),
      });
      await service.catalog.importCatalog(
        { products: [within(100, 500)], categories: [] },
        { replace: false, at: new Date(second + 200) },
      );
      const first = await get('/products/9101');
      const [firstEtag, firstLastModified] = [first.headers.get('etag')!, first.headers.get('last-modified')];
      expect(firstLastModified).toBe('Fri, 20 Nov 2026 10:00:00 GMT');
      await service.catalog.importCatalog(
        { products: [within(600, 501)], categories: [] },
        { replace: false, at: new Date(second + 800) },
      );
      const response = await get('/products/9101', {
        'If-None-Match': firstEtag,
        'If-Modified-Since': firstLastModified!,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).not.toBe(firstEtag);
      expect(response.headers.get('last-modified')).toBe(firstLastModified);
      // Gone again, so the list and the categories are the demo's for the tests that count them.
      const { removedProductIds } = await service.catalog.importCatalog(
        {
          products: (await service.catalog.listProducts()).filter((p) => p.id !== 9101),
          categories: await service.catalog.listCategories(),
        },
        { replace: true, at: new Date() },
      );
      expect(removedProductIds).toEqual([9101]);
    });
  });

  it('HEAD answers like GET, without the body', async () => {
    const full = await get('/products/1001');
    const body = Buffer.from(await full.arrayBuffer());
    const head = await get('/products/1001', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const header of ['etag', 'last-modified', 'cache-control', 'content-type']) {
      expect(head.headers.get(header)).toBe(full.headers.get(header));
    }
    expect(head.headers.get('content-length')).toBe(String(body.length));
  });

  it('404 problem details carrying code PRODUCT_NOT_FOUND, whatever the preconditions', async () => {
    for (const headers of [{}, { 'If-None-Match': '*' }]) {
      const response = await get('/products/999999', headers);
      expect(response.status).toBe(404);
      expect(await problemOf(response)).toEqual({
        type: 'https://orders.example/problems/not-found',
        title: 'Not Found',
        status: 404,
        detail: 'There is no product 999999.',
        instance: '/products/999999',
        code: 'PRODUCT_NOT_FOUND',
      });
    }
  });

  it.each(['abc', '-1', '0', '1.5', '007', '1e3', '99999999999999999999'])(
    'answers the id %s with a 400 problem, never a 500',
    async (id) => {
      const response = await get(`/products/${id}`);
      expect(response.status).toBe(400);
      expect((await problemOf(response)).errors).toEqual([
        { field: 'id', message: 'must be a positive integer' },
      ]);
    },
  );
});

describe('GET /products', () => {
  it('answers [{id, name}] with a strong ETag, public s-maxage=60, no Last-Modified, no max-age', async () => {
    const response = await get('/products');
    expect(response.status).toBe(200);
    const products = (await response.json()) as { id: number; name: string }[];
    expect(products).toHaveLength(60);
    expect(Object.keys(products[0]!)).toEqual(['id', 'name']);
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(response.headers.get('cache-control')).toBe('public, s-maxage=60');
    expect(response.headers.get('last-modified')).toBeNull();
  });

  it('304 when If-None-Match matches', async () => {
    const etag = (await get('/products')).headers.get('etag')!;
    const response = await get('/products', { 'If-None-Match': etag });
    expect(response.status).toBe(304);
    expect(response.headers.get('cache-control')).toBe('public, s-maxage=60');
  });

  it('changes its ETag when any product is updated, even though the list body stays the same', async () => {
    const before = await get('/products');
    const [body, etag] = [await before.text(), before.headers.get('etag')];
    const product = await aProduct();
    await service.catalog.importCatalog(
      { products: [{ ...product, updatedAt: '2026-11-21T12:00:00.000Z' }], categories: [] },
      { replace: false, at: new Date() },
    );
    const after = await get('/products');
    expect(await after.text()).toBe(body);
    expect(after.headers.get('etag')).not.toBe(etag);
    await service.catalog.importCatalog(
      { products: [product], categories: [] },
      { replace: false, at: new Date() },
    );
  });
});

describe('GET /categories and /categories/{id}', () => {
  it('lists categories as static master data: public, max-age=3600, ETag', async () => {
    const response = await get('/categories');
    expect(response.status).toBe(200);
    const categories = (await response.json()) as { id: string; name: string }[];
    expect(categories.length).toBeGreaterThanOrEqual(5);
    expect(categories).toContainEqual({ id: 'coffee-tea', name: 'Coffee & Tea' });
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = response.headers.get('etag')!;
    expect((await get('/categories', { 'If-None-Match': etag })).status).toBe(304);
  });

  it('answers one category with its products, cached by the default of rule 3', async () => {
    const response = await get('/categories/coffee-tea');
    expect(response.status).toBe(200);
    const category = (await response.json()) as { id: string; name: string; products: unknown[] };
    expect(category).toMatchObject({ id: 'coffee-tea', name: 'Coffee & Tea' });
    expect(category.products).toHaveLength(10);
    expect(category.products[0]).toEqual({ id: 1001, name: expect.any(String) });
    expect(response.headers.get('cache-control')).toBe('public, s-maxage=300');
    expect(response.headers.get('etag')).toMatch(/^"/);
  });

  it('404 for an unknown category, 400 for an id that cannot be one', async () => {
    const unknown = await get('/categories/toys');
    expect(unknown.status).toBe(404);
    expect(await problemOf(unknown)).toMatchObject({ type: 'https://orders.example/problems/not-found' });
    const malformed = await get('/categories/Not%20An%20Id');
    expect(malformed.status).toBe(400);
    expect(await problemOf(malformed)).toMatchObject({
      type: 'https://orders.example/problems/validation-failed',
    });
  });
});

describe('the catalogue takes no query parameters: one URL per resource, one copy in a shared cache', () => {
  it.each([
    '/products?foo=bar',
    '/products/1001?foo=1',
    '/products/1001/stock?v=2',
    '/categories?page=abc',
    '/categories/kitchen?x=',
  ])('%s -> 400 naming the parameter', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    const name = new URLSearchParams(path.split('?')[1]).keys().next().value!;
    expect((await problemOf(response)).errors).toEqual([{ field: name, message: 'unknown query parameter' }]);
  });

  it('a bare ? is no parameter', async () => {
    expect((await get('/products/1001?')).status).toBe(200);
    expect((await get('/products?')).status).toBe(200);
  });
});
