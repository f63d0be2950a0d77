import { describe, expect, it } from 'vitest';
import type { Category, Product } from '../../catalog/catalog.ts';
import { catalogAfterImport, changedSurrogateKeys, type CatalogContents } from '../../catalog/purge-keys.ts';

const coffee: Category = { id: 'coffee-tea', name: 'Coffee & Tea' };
const kitchen: Category = { id: 'kitchen', name: 'Kitchen' };
const product = (id: number, overrides: Partial<Product> = {}): Product => ({
  id,
  name: `Product ${id}`,
  priceMinor: 1000 + id,
  updatedAt: '2026-11-01T10:00:00.000Z',
  categoryId: 'coffee-tea',
  stock: 10,
  ...overrides,
});
const catalogue: CatalogContents = {
  products: [product(1001), product(1002), product(1011, { categoryId: 'kitchen' })],
  categories: [coffee, kitchen],
};

/** The keys an import of `products` (and `categories`) into the catalogue above purges. */
const purgedBy = (products: Product[], categories: Category[] = [], replace = false) =>
  changedSurrogateKeys(catalogue, catalogAfterImport(catalogue, { products, categories }, { replace }));

describe('the Surrogate-Keys an import purges: exactly those whose responses change', () => {
  it('nothing for an import that changes nothing', () => {
    expect(purgedBy([product(1001)], [coffee])).toEqual([]);
    expect(purgedBy([])).toEqual([]);
  });

  it('a price change with its new updatedAt: the product, and the list whose ETag covers update times', () => {
    expect(purgedBy([product(1001, { priceMinor: 1, updatedAt: '2026-11-25T10:00:00.000Z' })])).toEqual([
      'product-1001',
      'products',
    ]);
  });

  it('a price or stock change alone: the product only (its detail or its stock)', () => {
    expect(purgedBy([product(1001, { priceMinor: 1 })])).toEqual(['product-1001']);
    expect(purgedBy([product(1002, { stock: 0 })])).toEqual(['product-1002']);
    expect(purgedBy([product(1002, { stock: null })])).toEqual(['product-1002']);
  });

  it('a rename: the product, the list, its category and search', () => {
    expect(purgedBy([product(1011, { categoryId: 'kitchen', name: 'Chef’s knife' })])).toEqual([
      'category-kitchen',
      'product-1011',
      'products',
      'search',
    ]);
  });

  it('a move to another category: both categories only (the product detail does not show it)', () => {
    expect(purgedBy([product(1002, { categoryId: 'kitchen' })])).toEqual([
      'category-coffee-tea',
      'category-kitchen',
    ]);
  });

  it('a new product: its key (a cached 404), the list, its category and search', () => {
    expect(purgedBy([product(1003)])).toEqual(['category-coffee-tea', 'product-1003', 'products', 'search']);
  });

  it('a new category, or a renamed one: the category list and that category', () => {
    const garden = { id: 'garden', name: 'Garden' };
    expect(purgedBy([], [garden])).toEqual(['categories', 'category-garden']);
    expect(purgedBy([], [{ ...kitchen, name: 'Kitchen & Dining' }])).toEqual([
      'categories',
      'category-kitchen',
    ]);
  });

  it('with replace, whatever the file leaves out: its products, the lists, search and emptied categories', () => {
    expect(purgedBy([product(1001), product(1002)], [coffee], true)).toEqual([
      'categories',
      'category-kitchen',
      'product-1011',
      'products',
      'search',
    ]);
  });

  it('the first import into an empty catalogue: every key', () => {
    const keys = changedSurrogateKeys({ products: [], categories: [] }, catalogue);
    expect(keys).toEqual([
      'categories',
      'category-coffee-tea',
      'category-kitchen',
      'product-1001',
      'product-1002',
      'product-1011',
      'products',
      'search',
    ]);
  });
});

describe('the catalogue after an import', () => {
  it('replaces by id and adds the rest; with replace, keeps only the import', () => {
    const imported = { products: [product(1002, { name: 'New' }), product(1003)], categories: [kitchen] };
    expect(catalogAfterImport(catalogue, imported, { replace: false })).toEqual({
      products: [
        product(1001),
        product(1002, { name: 'New' }),
        product(1011, { categoryId: 'kitchen' }),
        product(1003),
      ],
      categories: [coffee, kitchen],
    });
    expect(catalogAfterImport(catalogue, imported, { replace: true })).toEqual(imported);
  });
});
