import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createMongoCatalogStore } from '../../catalog/mongo-catalog-store.ts';
import { catalogStoreContract } from '../contracts/catalog-store.contract.ts';
import { requiredServer } from '../support/integration-env.ts';
import { freshMongoDatabase } from '../support/mongo.ts';

const database = freshMongoDatabase();

// Each run of the contract on a database of its own, dropped at the end.
const client = new MongoClient(requiredServer('MONGODB_URL'));
const created: Db[] = [];
afterAll(async () => {
  for (const db of created) await db.dropDatabase();
  await client.close();
});
catalogStoreContract('MongoDB (FerretDB)', async () => {
  const db = client.db(`test_${randomUUID().replaceAll('-', '')}`);
  created.push(db);
  return createMongoCatalogStore(db);
});

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

describe('a purge left preparing by an import that died midway', () => {
  it('goes out with the next import that completes, changes or not', async () => {
    const db = await database();
    const store = await createMongoCatalogStore(db);
    const now = Date.now();
    // What an import leaves when it dies after recording its purge and before writing all of its change.
    await db.collection<{ _id: string }>('catalog_purges').insertOne({
      _id: '00000000-0000-7000-8000-000000000000',
      keys: ['product-77'],
      state: 'preparing',
      dueAt: 0,
      attempts: 0,
      sentTo: [],
      claims: 0,
      lease: null,
      settledAt: null,
    } as { _id: string });
    const pendingIds = async () => (await store.purges.due({ now, limit: 100 })).map((purge) => purge.id);
    expect(await pendingIds()).not.toContain('00000000-0000-7000-8000-000000000000');

    const old = (await store.getProduct(77))!;
    expect(
      await store.importCatalog({ products: [old], categories: [] }, { replace: false, at: new Date() }),
    ).toEqual({
      purgeKeys: [],
      removedProductIds: [],
    });
    expect(await pendingIds()).toContain('00000000-0000-7000-8000-000000000000');
  });
});
