import { beforeAll, describe, expect, it } from 'vitest';
import type { CatalogStore, Category, Product } from '../../catalog/catalog.ts';

/** When the contract's imports run, by the importing clock: after every date its products carry. */
const importedAt = new Date('2026-11-25T08:00:00Z');

const kitchen: Category = { id: 'kitchen', name: 'Kitchen' };
const garden: Category = { id: 'garden', name: 'Garden' };
/** Stock levels of the products the contract imports first: one sold out, one not tracked. */
const stockOf: Record<number, number | null> = { 1: 25, 2: 0, 3: null, 4: 3 };

const product = (
  id: number,
  name: string,
  categoryId = 'kitchen',
  updatedAt = '2026-11-01T10:00:00.000Z',
): Product => ({
  id,
  name,
  priceMinor: id * 10,
  updatedAt,
  categoryId,
  stock: stockOf[id] ?? null,
});

/**
 * What every adapter of the CatalogStore port promises. The catalogue is one per store, so each
 * `createStore()` gives a store of its own (a fresh file or database).
 */
export const catalogStoreContract = (adapterName: string, createStore: () => Promise<CatalogStore>) => {
  describe(`CatalogStore contract: ${adapterName}`, () => {
    let store: CatalogStore;
    beforeAll(async () => {
      store = await createStore();
      await store.importCatalog(
        {
          products: [
            product(3, 'Chef’s Knife'),
            product(1, 'Espresso Cup'),
            product(2, 'Watering Can', 'garden'),
            product(4, 'ÉCLAIR mould'),
          ],
          categories: [kitchen, garden],
        },
        { replace: false, at: importedAt },
      );
    });

    it('lists products by id and reads one, or null', async () => {
      expect((await store.listProducts()).map((p) => p.id)).toEqual([1, 2, 3, 4]);
      expect(await store.getProduct(3)).toEqual(product(3, 'Chef’s Knife'));
      expect(await store.getProduct(99)).toBeNull();
      expect(await store.countProducts()).toBe(4);
    });

    it("carries each product's stock: a count, zero when sold out, null when not tracked", async () => {
      expect((await store.listProducts()).map((p) => [p.id, p.stock])).toEqual([
        [1, 25],
        [2, 0],
        [3, null],
        [4, 3],
      ]);
      expect(await store.getProduct(2)).toMatchObject({ stock: 0 });
      expect(await store.getProduct(3)).toMatchObject({ stock: null });
    });

    it('lists categories by name, reads one with its products', async () => {
      expect(await store.listCategories()).toEqual([garden, kitchen]);
      expect(await store.getCategory('garden')).toEqual(garden);
      expect(await store.getCategory('toys')).toBeNull();
      expect(await store.productsInCategory('kitchen')).toEqual([
        { id: 1, name: 'Espresso Cup' },
        { id: 3, name: 'Chef’s Knife' },
        { id: 4, name: 'ÉCLAIR mould' },
      ]);
    });

    it('searches names case-insensitively, beyond ASCII, by id, a page at a time', async () => {
      expect(await store.searchProducts('CUP', { offset: 0, limit: 10 })).toEqual({
        total: 1,
        items: [{ id: 1, name: 'Espresso Cup' }],
      });
      expect((await store.searchProducts('éclair', { offset: 0, limit: 10 })).items).toEqual([
        { id: 4, name: 'ÉCLAIR mould' },
      ]);
      const page = await store.searchProducts('e', { offset: 1, limit: 2 });
      expect(page.total).toBe(3); // 'É' is not 'e'
      expect(page.items.map((p) => p.id)).toEqual([2, 3]);
      // regular-expression and LIKE characters are plain text
      expect((await store.searchProducts('.*', { offset: 0, limit: 10 })).total).toBe(0);
      expect((await store.searchProducts('%', { offset: 0, limit: 10 })).total).toBe(0);
    });

    it('moves its revision with every import, and updates products by id, stock included', async () => {
      const before = await store.revision();
      await store.importCatalog(
        {
          products: [
            { ...product(1, 'Espresso Cup, white', 'kitchen', '2026-11-20T09:00:00.000Z'), stock: 7 },
            { ...product(3, 'Chef’s Knife'), stock: 2 },
            { ...product(4, 'ÉCLAIR mould'), stock: null },
          ],
          categories: [kitchen],
        },
        { replace: false, at: importedAt },
      );
      const after = await store.revision();
      expect(after).not.toBe(before);
      expect(await store.getProduct(1)).toMatchObject({
        name: 'Espresso Cup, white',
        updatedAt: '2026-11-20T09:00:00.000Z',
        stock: 7,
      });
      expect(await store.getProduct(3)).toMatchObject({ stock: 2 });
      expect(await store.getProduct(4)).toMatchObject({ stock: null });
      expect(await store.countProducts()).toBe(4);
    });

    it('with replace, removes products and categories absent from the import, and says which products', async () => {
      const { removedProductIds } = await store.importCatalog(
        { products: [product(2, 'Watering Can', 'garden')], categories: [garden] },
        { replace: true, at: importedAt },
      );
      expect(removedProductIds).toEqual([1, 3, 4]);
      expect((await store.listProducts()).map((p) => p.id)).toEqual([2]);
      expect(await store.listCategories()).toEqual([garden]);
    });

    it('dates a product by its updatedAt, or by the import’s time where that date would mislead Last-Modified', async () => {
      const milkJug = (updatedAt: string, stock: number | null = 5) => ({
        ...product(5, 'Milk Jug', 'kitchen', `2026-11-25T${updatedAt}Z`),
        stock,
      });
      const importing = (products: Product[], time: string) =>
        store.importCatalog(
          { products, categories: [] },
          { replace: false, at: new Date(`2026-11-25T${time}Z`) },
        );
      const recordedAt = async () => (await store.getProduct(5))?.recordedAt;

      // New, dated before the import: its own date.
      await importing([milkJug('11:00:00.000')], '12:00:00');
      expect(await store.getProduct(5)).toEqual(milkJug('11:00:00.000'));
      // Changed under the same date, under an older one, or within the same second: the import's time, as
      // If-Modified-Since with the date last sent would otherwise miss the change.
      await importing([milkJug('11:00:00.000', 4)], '12:01:00');
      expect(await recordedAt()).toBe('2026-11-25T12:01:00.000Z');
      await importing([milkJug('10:00:00.000', 4)], '12:02:00');
      expect(await recordedAt()).toBe('2026-11-25T12:02:00.000Z');
      await importing([milkJug('12:02:00.400', 4)], '12:03:00');
      expect(await recordedAt()).toBe('2026-11-25T12:03:00.000Z');
      // Changed with a later date, not after the import: its own date again.
      await importing([milkJug('12:03:30.000', 4)], '12:04:00');
      expect(await store.getProduct(5)).toEqual(milkJug('12:03:30.000', 4));

      // Dated ahead of the importing clock: the import's time, kept through the same file imported again
      // (which changes and purges nothing), and recorded anew with a change under the same date.
      await importing([milkJug('12:10:00.000', 4)], '12:05:00');
      expect(await store.getProduct(5)).toEqual({
        ...milkJug('12:10:00.000', 4),
        recordedAt: '2026-11-25T12:05:00.000Z',
      });
      expect((await importing([milkJug('12:10:00.000', 4)], '12:06:00')).purgeKeys).toEqual([]);
      expect(await recordedAt()).toBe('2026-11-25T12:05:00.000Z');
      expect((await store.listProducts()).find((p) => p.id === 5)?.recordedAt).toBe(
        '2026-11-25T12:05:00.000Z',
      );
      await importing([milkJug('12:10:00.000', 3)], '12:07:00');
      expect(await recordedAt()).toBe('2026-11-25T12:07:00.000Z');

      // A recordedAt in the file is not the file's to say.
      await importing(
        [{ ...milkJug('12:07:30.000', 3), recordedAt: '2020-01-01T00:00:00.000Z' }],
        '12:08:00',
      );
      expect(await store.getProduct(5)).toEqual(milkJug('12:07:30.000', 3));

      // Removed, then back under an older date: the import's time, as a client may hold it from before. So
      // is any product new to the catalogue dated before that removal; one dated after it is its own date.
      const { removedProductIds } = await store.importCatalog(
        { products: [product(2, 'Watering Can', 'garden')], categories: [garden] },
        { replace: true, at: new Date('2026-11-25T12:09:00Z') },
      );
      expect(removedProductIds).toEqual([5]);
      const newcomer = (id: number, updatedAt: string) => ({
        ...product(id, `Newcomer ${id}`, 'kitchen', `2026-11-25T${updatedAt}Z`),
        stock: null,
      });
      await importing(
        [milkJug('11:00:00.000', 9), newcomer(6, '12:08:59.999'), newcomer(7, '12:09:01.000')],
        '12:10:00',
      );
      expect(await recordedAt()).toBe('2026-11-25T12:10:00.000Z');
      expect((await store.getProduct(6))?.recordedAt).toBe('2026-11-25T12:10:00.000Z');
      expect(await store.getProduct(7)).toEqual(newcomer(7, '12:09:01.000'));
    });
  });

  describe(`CatalogStore contract, a whole catalogue again: ${adapterName}`, () => {
    // FerretDB stopped answering for good when one bulk write replaced about 50 existing documents.
    it('imports 120 products over 120, every one changed, and again, and reads them back', async () => {
      const store = await createStore();
      const catalogue = (priceMinor: number) =>
        Array.from({ length: 120 }, (_, n) => ({ ...product(1001 + n, `Product ${n}`), priceMinor }));
      for (const priceMinor of [100, 200, 300]) {
        await store.importCatalog(
          { products: catalogue(priceMinor), categories: [kitchen] },
          { replace: false, at: importedAt },
        );
      }
      const unchanged = await store.importCatalog(
        { products: catalogue(300), categories: [kitchen] },
        { replace: false, at: importedAt },
      );
      expect(unchanged.purgeKeys).toEqual([]);
      const products = await store.listProducts();
      expect(products).toHaveLength(120);
      expect(new Set(products.map((p) => p.priceMinor))).toEqual(new Set([300]));
    });
  });

  describe(`CatalogStore purge outbox contract: ${adapterName}`, () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    const lease = { now, leaseUntil: now + 60_000 };
    let store: CatalogStore;
    beforeAll(async () => {
      store = await createStore();
    });

    /** Imports one change of product 1's price: one more pending purge, of product-1 only. */
    const changeAPrice = async (priceMinor: number) => {
      const { purgeKeys } = await store.importCatalog(
        { products: [{ ...product(1, 'Espresso Cup'), priceMinor }], categories: [] },
        { replace: false, at: importedAt },
      );
      expect(purgeKeys).toEqual(['product-1']);
      const due = await store.purges.due({ now, limit: 10 });
      return due[due.length - 1]!;
    };

    it('records the keys an import changed as one pending purge, and nothing for an import that changes nothing', async () => {
      const first = {
        products: [product(1, 'Espresso Cup'), product(2, 'Watering Can', 'garden')],
        categories: [kitchen, garden],
      };
      const { purgeKeys } = await store.importCatalog(first, { replace: false, at: importedAt });
      expect(purgeKeys).toEqual([
        'categories',
        'category-garden',
        'category-kitchen',
        'product-1',
        'product-2',
        'products',
        'search',
      ]);
      const [pending, ...others] = await store.purges.due({ now, limit: 10 });
      expect(others).toEqual([]);
      expect(pending).toEqual({ id: expect.any(String), keys: purgeKeys, attempts: 0, sentTo: [] });
      expect(await store.purges.claim(pending!.id, { owner: 'a', ...lease })).toBe(true);
      expect(await store.purges.settle(pending!.id, 'a', { status: 'sent', at: now })).toBe(true);

      expect(await store.importCatalog(first, { replace: false, at: importedAt })).toEqual({
        purgeKeys: [],
        removedProductIds: [],
      });
      expect(await store.purges.due({ now, limit: 10 })).toEqual([]);
    });

    it('lets exactly one of many concurrent claimants take a purge, and nobody else until its lease ends', async () => {
      const purge = await changeAPrice(11);
      const owners = Array.from({ length: 8 }, (_, n) => `instance-${n}`);
      const won = await Promise.all(owners.map((owner) => store.purges.claim(purge.id, { owner, ...lease })));
      expect(won.filter(Boolean)).toHaveLength(1);
      const holder = owners[won.indexOf(true)]!;

      expect(await store.purges.due({ now: now + 59_999, limit: 10 })).toEqual([]);
      expect(
        await store.purges.claim(purge.id, { owner: 'late', now: now + 59_999, leaseUntil: now + 120_000 }),
      ).toBe(false);
      // The holder died: once its lease ran out, another process takes the purge, and the holder cannot settle it.
      expect((await store.purges.due({ now: now + 60_000, limit: 10 })).map((p) => p.id)).toEqual([purge.id]);
      expect(
        await store.purges.claim(purge.id, { owner: 'late', now: now + 60_000, leaseUntil: now + 120_000 }),
      ).toBe(true);
      expect(await store.purges.settle(purge.id, holder, { status: 'sent', at: now })).toBe(false);
      expect(await store.purges.settle(purge.id, 'late', { status: 'sent', at: now + 60_000 })).toBe(true);
      expect(await store.purges.due({ now: now + 600_000, limit: 10 })).toEqual([]);
    });

    it('keeps a retried purge pending until it is due, counting the attempt and the caches that took it', async () => {
      const purge = await changeAPrice(12);
      expect(await store.purges.claim(purge.id, { owner: 'a', ...lease })).toBe(true);
      expect(
        await store.purges.settle(purge.id, 'a', {
          status: 'retry',
          dueAt: now + 2000,
          sentTo: ['http://cache-1/'],
        }),
      ).toBe(true);
      expect(await store.purges.due({ now: now + 1999, limit: 10 })).toEqual([]);
      expect(await store.purges.due({ now: now + 2000, limit: 10 })).toEqual([
        { id: purge.id, keys: ['product-1'], attempts: 1, sentTo: ['http://cache-1/'] },
      ]);
      expect(
        await store.purges.claim(purge.id, { owner: 'b', now: now + 2000, leaseUntil: now + 62_000 }),
      ).toBe(true);
      expect(
        await store.purges.settle(purge.id, 'b', {
          status: 'abandoned',
          at: now + 2000,
          sentTo: ['http://cache-1/'],
        }),
      ).toBe(true);
      expect(await store.purges.due({ now: now + 600_000, limit: 10 })).toEqual([]);
    });

    it('gives due purges oldest first, a page at a time', async () => {
      const older = await changeAPrice(13);
      const newer = await changeAPrice(14);
      expect((await store.purges.due({ now, limit: 10 })).map((p) => p.id)).toEqual([older.id, newer.id]);
      expect((await store.purges.due({ now, limit: 1 })).map((p) => p.id)).toEqual([older.id]);
    });

    it('prunes purges sent or abandoned before a time, never pending ones', async () => {
      const pending = (await store.purges.due({ now, limit: 10 })).map((p) => p.id);
      expect(await store.purges.prune(now)).toBe(0);
      expect(await store.purges.prune(now + 60_001)).toBe(3);
      expect((await store.purges.due({ now, limit: 10 })).map((p) => p.id)).toEqual(pending);
    });
  });
};
