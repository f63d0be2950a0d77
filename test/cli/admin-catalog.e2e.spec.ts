import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ CATALOG_REFRESH_INTERVAL_MS: '0' });
});
afterAll(() => service.stop());

const writeCatalog = (name: string, content: unknown) => {
  const path = join(service.dataDir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const teapot = {
  id: 4242,
  name: 'Cast-iron teapot',
  price: 34.5,
  updatedAt: '2026-11-21T09:30:00Z',
  category: 'Coffee & Tea',
};

describe('npm run admin -- catalog:import (the admin backend of the catalogue)', () => {
  it('adds and updates products in the store of a running service, which serves them at once', async () => {
    const etagBefore = (await fetch(`${service.url}/products`)).headers.get('etag');
    const result = await runAdmin(['catalog:import', writeCatalog('add.json', { products: [teapot] })], {
      DATA_DIR: service.dataDir,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('imported 1 product in 1 category (added or updated)');

    const product = await fetch(`${service.url}/products/4242`);
    expect(product.status).toBe(200);
    expect(await product.json()).toEqual({
      id: 4242,
      name: 'Cast-iron teapot',
      price: 34.5,
      updatedAt: '2026-11-21T09:30:00.000Z',
    });
    expect((await fetch(`${service.url}/products`)).headers.get('etag')).not.toBe(etagBefore);
    expect((await fetch(`${service.url}/products/1001`)).status).toBe(200);
  });

  it('with --replace, removes what the file does not list, and says how many it removed', async () => {
    const result = await runAdmin(['catalog:import', '--replace', writeCatalog('only.json', [teapot])], {
      DATA_DIR: service.dataDir,
    });
    expect(result.code, result.stderr).toBe(0);
    // Never silently: the 60 demo products (1001 to 1060) are gone, and the output says so.
    expect(result.stdout).toContain(
      'removed 60 products the file does not list: 1001 1002 1003 1004 1005 1006 1007 1008 1009 1010 (and 50 more)\n',
    );
    expect(await (await fetch(`${service.url}/products`)).json()).toEqual([
      { id: 4242, name: 'Cast-iron teapot' },
    ]);
    expect((await fetch(`${service.url}/products/1001`)).status).toBe(404);
  });

  it('finishes its import quietly when the reader of its output is gone (`| head`)', async () => {
    const file = writeCatalog('unread.json', [{ ...teapot, id: 4247 }]);
    const result = await runAdmin(['catalog:import', file], { DATA_DIR: service.dataDir }, undefined, {
      closeStdout: true,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((await fetch(`${service.url}/products/4247`)).status).toBe(200);
  });

  it('refuses a bad file with its problems (exit 65) and changes nothing', async () => {
    const bad = writeCatalog('bad.json', [
      { ...teapot, price: 34.555 },
      { ...teapot, id: 7, name: '' },
    ]);
    const result = await runAdmin(['catalog:import', bad], { DATA_DIR: service.dataDir });
    expect(result.code).toBe(65);
    expect(result.stderr).toContain('products[0].price: EUR has at most 2 decimal places');
    expect(result.stderr).toContain('products[1].name');
    expect((await fetch(`${service.url}/products/7`)).status).toBe(404);

    const notJson = await runAdmin(['catalog:import', writeCatalog('broken.json', '{"products": [')], {
      DATA_DIR: service.dataDir,
    });
    expect(notJson.code).toBe(65);
    expect(notJson.stderr).toMatch(/cannot read .* as JSON/);
  });

  it('refuses an updatedAt more than 5 minutes ahead of its clock, naming the product, and changes nothing', async () => {
    const ahead = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    const future = writeCatalog('future.json', [
      { ...teapot, id: 4243, updatedAt: ahead(4) },
      { ...teapot, id: 4244, updatedAt: ahead(60) },
    ]);
    const result = await runAdmin(['catalog:import', future], { DATA_DIR: service.dataDir });
    expect(result.code).toBe(65);
    expect(result.stderr).toMatch(
      /products\[1\]\.updatedAt: product 4244: .* is more than 5 minutes in the future/,
    );
    expect(result.stderr).not.toContain('4243');
    expect((await fetch(`${service.url}/products/4243`)).status).toBe(404);
  });

  it('dates a product stamped ahead of its clock at the import: Last-Modified stays put, through the same import again', async () => {
    const updatedAt = new Date(Date.now() + 3 * 60_000).toISOString();
    const file = writeCatalog('ahead.json', [{ ...teapot, id: 4245, updatedAt }]);
    const started = Date.now();
    const result = await runAdmin(['catalog:import', file], { DATA_DIR: service.dataDir });
    expect(result.code, result.stderr).toBe(0);
    const finished = Date.now();

    const first = await fetch(`${service.url}/products/4245`);
    expect(((await first.json()) as { updatedAt: string }).updatedAt).toBe(updatedAt);
    const lastModified = first.headers.get('last-modified')!;
    // The import's own time, to the second it was run in: not the stamp ahead, not this response's Date.
    expect(Date.parse(lastModified)).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(finished);

    // Another run of the same file changes nothing; and once the clock has passed the second named, the
    // date is still the same (the date as capped at each response's Date would move on with it).
    const again = await runAdmin(['catalog:import', file], { DATA_DIR: service.dataDir });
    expect(again.stdout).toContain('nothing to purge');
    await setTimeout(Math.max(0, Date.parse(lastModified) + 1000 - Date.now()));
    for (const path of ['/products/4245', '/products/4245/stock']) {
      const response = await fetch(`${service.url}${path}`, {
        headers: { 'If-Unmodified-Since': lastModified },
      });
      await response.arrayBuffer();
      expect(response.status, `${path} If-Unmodified-Since: ${lastModified}`).toBe(200);
      expect(response.headers.get('last-modified'), path).toBe(lastModified);
      expect(Date.parse(response.headers.get('date')!)).toBeGreaterThan(Date.parse(lastModified));
      const current = await fetch(`${service.url}${path}`, {
        headers: { 'If-Modified-Since': lastModified },
      });
      await current.arrayBuffer();
      expect(current.status, `${path} If-Modified-Since: ${lastModified}`).toBe(304);
    }
  });

  it('moves Last-Modified on to the import when a product changes under the same or an older date', async () => {
    // Dated a second ago: after the --replace above, which a product dated before it would be
    // recorded after (a client may hold a copy of one it removed).
    const recently = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000);
    const product = { ...teapot, id: 4246, updatedAt: recently.toISOString() };
    const importing = async (name: string, entry: typeof product) => {
      const result = await runAdmin(['catalog:import', writeCatalog(name, [entry])], {
        DATA_DIR: service.dataDir,
      });
      expect(result.code, result.stderr).toBe(0);
    };
    const lastModified = async () => {
      const response = await fetch(`${service.url}/products/4246`);
      await response.arrayBuffer();
      return response.headers.get('last-modified')!;
    };
    await importing('dated.json', product);
    const dated = await lastModified();
    expect(dated).toBe(recently.toUTCString());

    for (const [name, changed] of [
      ['repriced.json', { ...product, price: 35 }],
      [
        'older.json',
        { ...product, price: 35, updatedAt: new Date(recently.getTime() - 86_400_000).toISOString() },
      ],
    ] as const) {
      const before = await lastModified();
      // Into the next second, so that the dates can differ (Last-Modified has one-second granularity).
      await setTimeout(Math.max(0, Date.parse(before) + 1000 - Date.now()));
      const started = Math.floor(Date.now() / 1000) * 1000;
      await importing(name, changed);
      const after = await lastModified();
      expect(Date.parse(after), name).toBeGreaterThanOrEqual(started);
      // A copy dated as the one before is no longer current.
      const stale = await fetch(`${service.url}/products/4246`, { headers: { 'If-Modified-Since': before } });
      expect(stale.status, `${name}: If-Modified-Since ${before}`).toBe(200);
      expect(((await stale.json()) as { updatedAt: string }).updatedAt).toBe(
        new Date(changed.updatedAt).toISOString(),
      );
    }
  });

  it('says which cached responses the import changed: the Surrogate-Keys the service will purge', async () => {
    const repriced = writeCatalog('repriced.json', [
      { ...teapot, price: 36, updatedAt: '2026-11-22T08:00:00Z' },
    ]);
    const changed = await runAdmin(['catalog:import', repriced], { DATA_DIR: service.dataDir });
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).not.toContain('removed');
    expect(changed.stdout).toContain('to be purged from caches by Surrogate-Key: product-4242 products\n');
  });
});
