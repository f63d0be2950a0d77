import { describe, expect, it } from 'vitest';
import { createMongoCatalogStore } from '../../catalog/mongo-catalog-store.ts';
import { catalogStoreContract } from '../contracts/catalog-store.contract.ts';
import { freshMongoDatabase } from '../support/mongo.ts';

const database = freshMongoDatabase();

catalogStoreContract('MongoDB (FerretDB)', async () => createMongoCatalogStore(await database()));

describe('products written before they had stock', () => {
  it('read as not tracked', async () => {
    const db = await database();
    const store = await createMongoCatalogStore(db);
    await db.collection<{ _id: number; [field: string]: unknown }>('catalog_products').insertOne({
      _id: 77,
      name: 'Old mug',
      nameFolded: 'old mug',
      priceMinor: 500,
      updatedAt: '2026-01-01T00:00:00.000Z',
      categoryId: 'kitchen',
    });
    expect(await store.getProduct(77)).toEqual({
      id: 77,
      name: 'Old mug',
      priceMinor: 500,
      updatedAt: '2026-01-01T00:00:00.000Z',
      categoryId: 'kitchen',
      stock: null,
    });
  });
});
