import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CatalogFileError, readCatalogFile } from '../../catalog/catalog-file.ts';

const entry = {
  id: 7,
  name: 'Milk jug',
  price: 19.99,
  updatedAt: '2026-11-01T10:00:00+01:00',
  category: 'Coffee & Tea',
};

const problemsOf = (input: unknown, currency = 'EUR') => {
  try {
    readCatalogFile(input, currency);
  } catch (error) {
    if (error instanceof CatalogFileError) return error.problems;
    throw error;
  }
  throw new Error('the file was accepted');
};

describe('the catalogue import file', () => {
  it('turns entries into products (minor units, UTC times) and categories (slug ids)', () => {
    const expected = {
      products: [
        {
          id: 7,
          name: 'Milk jug',
          priceMinor: 1999,
          updatedAt: '2026-11-01T09:00:00.000Z',
          categoryId: 'coffee-tea',
          stock: null,
        },
      ],
      categories: [{ id: 'coffee-tea', name: 'Coffee & Tea' }],
    };
    expect(readCatalogFile({ products: [entry] }, 'EUR')).toEqual(expected);
    expect(readCatalogFile([entry], 'EUR')).toEqual(expected);
  });

  it('refuses prices with more decimals than the currency has, rather than rounding them', () => {
    expect(problemsOf([{ ...entry, price: 19.999 }])).toEqual([
      { field: 'products[0].price', message: 'EUR has at most 2 decimal places' },
    ]);
    expect(problemsOf([entry], 'JPY')).toEqual([
      { field: 'products[0].price', message: 'JPY has at most 0 decimal places' },
    ]);
  });

  it('takes stock as an integer of 0 or more, and reads its absence as not tracked', () => {
    const [tracked, soldOut, untracked] = readCatalogFile(
      [
        { ...entry, stock: 12 },
        { ...entry, id: 8, stock: 0 },
        { ...entry, id: 9 },
      ],
      'EUR',
    ).products;
    expect([tracked?.stock, soldOut?.stock, untracked?.stock]).toEqual([12, 0, null]);
    expect(
      problemsOf([
        { ...entry, stock: -1 },
        { ...entry, id: 8, stock: 2.5 },
        { ...entry, id: 9, stock: '3' },
        { ...entry, id: 10, stock: null },
      ]).map((p) => p.field),
    ).toEqual(['products[0].stock', 'products[1].stock', 'products[2].stock', 'products[3].stock']);
  });

  it('given the clock, refuses an updatedAt more than 5 minutes ahead of it, naming the product', () => {
    const now = new Date('2026-11-01T09:00:00Z');
    const at = (offsetMs: number) => new Date(now.getTime() + offsetMs).toISOString();
    const file = [
      { ...entry, updatedAt: at(5 * 60_000) },
      { ...entry, id: 8, updatedAt: at(5 * 60_000 + 1) },
    ];
    expect(() => readCatalogFile(file, 'EUR')).not.toThrow();
    try {
      readCatalogFile(file, 'EUR', { now });
      expect.unreachable('the file was accepted');
    } catch (error) {
      expect((error as CatalogFileError).problems).toEqual([
        {
          field: 'products[1].updatedAt',
          message: 'product 8: 2026-11-01T09:05:00.001Z is more than 5 minutes in the future',
        },
      ]);
    }
  });

  it('reports duplicate ids and categories whose names collide, each at its place', () => {
    expect(problemsOf([entry, { ...entry, category: 'Coffee  Tea' }])).toEqual([
      { field: 'products[1].id', message: 'duplicate product id 7' },
      { field: 'products[1].category', message: '"Coffee  Tea" and "Coffee & Tea" share the id coffee-tea' },
    ]);
  });

  it('reports malformed entries and unknown fields', () => {
    const problems = problemsOf({
      products: [
        { ...entry, name: '', colour: 'blue' },
        { ...entry, id: 8, updatedAt: 'yesterday' },
      ],
    });
    expect(problems.map((p) => p.field)).toEqual([
      'products[0].name',
      'products[0].colour',
      'products[1].updatedAt',
    ]);
    expect(problemsOf({ items: [] })).toEqual([
      { field: 'products', message: expect.any(String) },
      { field: 'items', message: 'unknown field' },
    ]);
    expect(problemsOf('a string')).toEqual([
      { field: 'file', message: 'expected {"products": [...]} or an array of products' },
    ]);
  });

  it('ships a demo catalogue of at least 50 products in at least 5 categories', () => {
    const file = readFileSync(new URL('../../catalog/demo-catalog.json', import.meta.url), 'utf8');
    const demo = readCatalogFile(JSON.parse(file), 'EUR');
    expect(demo.products.length).toBeGreaterThanOrEqual(50);
    expect(demo.categories.length).toBeGreaterThanOrEqual(5);
  });

  it('gives the demo catalogue stock levels a newcomer sees at work: plenty, low, sold out, not tracked', () => {
    const file = readFileSync(new URL('../../catalog/demo-catalog.json', import.meta.url), 'utf8');
    const stock = new Map(readCatalogFile(JSON.parse(file), 'EUR').products.map((p) => [p.id, p.stock]));
    // The README and the tests order 1001 (two at a time, up to three under load) and 1017.
    expect(stock.get(1001)).toBeGreaterThanOrEqual(100);
    expect(stock.get(1017)).toBeGreaterThanOrEqual(100);
    const levels = [...stock.values()];
    expect(levels.filter((level) => level === 0)).toHaveLength(1);
    expect(levels.filter((level) => level !== null && level > 0 && level < 5).length).toBeGreaterThanOrEqual(
      2,
    );
    expect(levels.filter((level) => level === null).length).toBeGreaterThanOrEqual(1);
  });
});
