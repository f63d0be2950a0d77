import { beforeAll, describe, expect, it } from 'vitest';
import type { CatalogStore, Category, Product } from '../../catalog/catalog.ts';

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
 * What every adapter of the CatalogStore port promises. The catalogue is one per store, so each run gets a
 * store of its own (a fresh file or database).
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
        { replace: false },
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
        { replace: false },
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

    it('with replace, removes products and categories absent from the import', async () => {
      await store.importCatalog(
        { products: [product(2, 'Watering Can', 'garden')], categories: [garden] },
        { replace: true },
      );
      expect((await store.listProducts()).map((p) => p.id)).toEqual([2]);
      expect(await store.listCategories()).toEqual([garden]);
    });
  });
};
