import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CatalogStore, Product } from '../../catalog/catalog.ts';
import { createCatalogSnapshot } from '../../catalog/catalog-snapshot.ts';
import { createSqliteCatalogStore } from '../../catalog/sqlite-catalog-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';

// The catalogue snapshot over a real node:sqlite store, counting what it asks the store.
const dir = mkdtempSync(join(tmpdir(), 'catalog-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const product = (id: number, name: string, stock: number | null = 5): Product => ({
  id,
  name,
  priceMinor: 100 * id,
  updatedAt: '2026-11-25T09:00:00.000Z',
  categoryId: 'mugs',
  stock,
});

const countingStore = (name: string) => {
  const store = createSqliteCatalogStore(openDatabase({ path: join(dir, `${name}.sqlite`) }));
  const calls = { revision: 0, listProducts: 0, getProduct: 0 };
  const counted: Pick<CatalogStore, 'revision' | 'listProducts' | 'getProduct'> = {
    revision: () => (calls.revision++, store.revision()),
    listProducts: () => (calls.listProducts++, store.listProducts()),
    getProduct: (id) => (calls.getProduct++, store.getProduct(id)),
  };
  return { store, counted, calls };
};
const categories = [{ id: 'mugs', name: 'Mugs' }];

describe('catalogue snapshot', () => {
  it('answers from memory, and reloads once the revision moved: an import applies to the next order', async () => {
    const { store, counted, calls } = countingStore('revision');
    await store.importCatalog(
      { products: [product(1, 'Cup', 3)], categories },
      { replace: false, at: new Date() },
    );
    const snapshot = createCatalogSnapshot({ store: counted, refreshIntervalMs: 0 });
    expect((await snapshot.getProduct(1))?.stock).toBe(3);
    expect((await snapshot.getProduct(1))?.stock).toBe(3);
    expect(calls).toEqual({ revision: 2, listProducts: 1, getProduct: 0 });
    await store.importCatalog(
      { products: [product(1, 'Cup', 0)], categories },
      { replace: false, at: new Date() },
    );
    expect((await snapshot.getProduct(1))?.stock).toBe(0);
    expect(calls.listProducts).toBe(2);
  });

  it('looks a product it lacks up in the store, and answers null for one that does not exist', async () => {
    const { store, counted, calls } = countingStore('unknown');
    const snapshot = createCatalogSnapshot({ store: counted, refreshIntervalMs: 60_000 });
    await store.importCatalog(
      { products: [product(1, 'Cup')], categories },
      { replace: false, at: new Date() },
    );
    expect(await snapshot.getProduct(1)).toEqual(product(1, 'Cup'));
    await store.importCatalog(
      { products: [product(2, 'Saucer')], categories },
      { replace: false, at: new Date() },
    );
    // The timer has not fired yet: product 2 is not in the snapshot, and is found in the store.
    expect((await snapshot.getProduct(2))?.name).toBe('Saucer');
    expect(await snapshot.getProduct(3)).toBeNull();
    expect(calls.getProduct).toBe(2);
    snapshot.stop();
  });

  it('searches names case-insensitively, by id, a page at a time, with the total', async () => {
    const { store, counted } = countingStore('search');
    await store.importCatalog(
      {
        products: [
          product(3, 'Tea MUG'),
          product(1, 'Espresso cup'),
          product(2, 'Travel mug'),
          product(4, 'Plate'),
        ],
        categories,
      },
      { replace: false, at: new Date() },
    );
    const snapshot = createCatalogSnapshot({ store: counted, refreshIntervalMs: 0 });
    expect(await snapshot.searchProducts('mug', { offset: 0, limit: 1 })).toEqual({
      total: 2,
      items: [{ id: 2, name: 'Travel mug' }],
    });
    expect(await snapshot.searchProducts('MUG', { offset: 1, limit: 5 })).toEqual({
      total: 2,
      items: [{ id: 3, name: 'Tea MUG' }],
    });
    expect(await snapshot.searchProducts('bowl', { offset: 0, limit: 5 })).toEqual({ total: 0, items: [] });
  });
});
