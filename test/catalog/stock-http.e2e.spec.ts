import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '../../catalog/catalog.ts';
import { problemOf } from '../support/http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let products: Product[];
beforeAll(async () => {
  // Refresh at once, so an import made in a test is served by the next request.
  service = await startTestService({ CATALOG_REFRESH_INTERVAL_MS: '0' });
  products = await service.catalog.listProducts();
});
afterAll(() => service.stop());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${service.url}${path}`, { method, headers });

/** A product of the demo catalogue whose stock is as asked, read from the store. */
const productWith = (stock: (level: number | null) => boolean) => {
  const found = products.find((product) => stock(product.stock));
  if (!found) throw new Error('the demo catalogue has no such product');
  return found;
};

describe('GET /products/{id}/stock', () => {
  it('answers a tracked product’s stock with a strong ETag, Last-Modified and 30 s of caching', async () => {
    const product = productWith((level) => level !== null && level > 0);
    const response = await get(`/products/${product.id}/stock`);
    expect(response.status).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(JSON.parse(bytes.toString())).toEqual({
      productId: product.id,
      available: product.stock,
      tracked: true,
      updatedAt: product.updatedAt,
    });
    expect(response.headers.get('etag')).toBe(
      `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`,
    );
    expect(response.headers.get('last-modified')).toBe(new Date(product.updatedAt).toUTCString());
    expect(response.headers.get('cache-control')).toBe('public, max-age=30, s-maxage=30');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('answers a sold-out product with 0 available, and an untracked one with available null, tracked false', async () => {
    const soldOut = productWith((level) => level === 0);
    expect(await (await get(`/products/${soldOut.id}/stock`)).json()).toEqual({
      productId: soldOut.id,
      available: 0,
      tracked: true,
      updatedAt: soldOut.updatedAt,
    });
    const untracked = productWith((level) => level === null);
    expect(await (await get(`/products/${untracked.id}/stock`)).json()).toEqual({
      productId: untracked.id,
      available: null,
      tracked: false,
      updatedAt: untracked.updatedAt,
    });
  });

  it('answers conditional requests as the product detail does: 304 with the caching headers', async () => {
    const product = productWith((level) => level !== null);
    const path = `/products/${product.id}/stock`;
    const first = await get(path);
    const [etag, lastModified] = [first.headers.get('etag')!, first.headers.get('last-modified')!];
    for (const headers of [{ 'If-None-Match': etag }, { 'If-Modified-Since': lastModified }]) {
      const response = await get(path, headers);
      expect(response.status).toBe(304);
      expect(await response.text()).toBe('');
      expect(response.headers.get('etag')).toBe(etag);
      expect(response.headers.get('last-modified')).toBe(lastModified);
      expect(response.headers.get('cache-control')).toBe('public, max-age=30, s-maxage=30');
    }
    expect((await get(path, { 'If-None-Match': '"stale"' })).status).toBe(200);
    const head = await get(path, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('etag')).toBe(etag);
  });

  it('follows an import that changes the stock: new level, new ETag', async () => {
    const product = productWith((level) => level !== null && level > 0);
    const path = `/products/${product.id}/stock`;
    const before = await get(path);
    await service.catalog.importCatalog(
      { products: [{ ...product, stock: product.stock! + 5 }], categories: [] },
      { replace: false, at: new Date() },
    );
    const after = await get(path, { 'If-None-Match': before.headers.get('etag')! });
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ available: product.stock! + 5, tracked: true });
    await service.catalog.importCatalog(
      { products: [product], categories: [] },
      { replace: false, at: new Date() },
    );
    expect(await (await get(path)).json()).toMatchObject({ available: product.stock });
  });

  it('404 problem with code PRODUCT_NOT_FOUND for an unknown product, 400 for an id that cannot be one', async () => {
    const missing = await get('/products/999999/stock');
    expect(missing.status).toBe(404);
    expect(await problemOf(missing)).toMatchObject({
      status: 404,
      detail: 'There is no product 999999.',
      instance: '/products/999999/stock',
      code: 'PRODUCT_NOT_FOUND',
    });
    const invalid = await get('/products/007/stock');
    expect(invalid.status).toBe(400);
    expect((await problemOf(invalid)).errors).toEqual([
      { field: 'id', message: 'must be a positive integer' },
    ]);
  });
});
