import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMongoIdempotencyStore } from '../../command-api/idempotency/mongo-idempotency-store.ts';
import { createMongoCheckpointStore } from '../../infrastructure/event-sourcing/mongo-checkpoint-store.ts';
import { createMongoOrderReadModel } from '../../projections/orders/mongo-order-read-model.ts';
import { checkpointStoreContract } from '../contracts/checkpoint-store.contract.ts';
import { idempotencyStoreContract } from '../contracts/idempotency-store.contract.ts';
import { orderReadModelContract } from '../contracts/order-read-model.contract.ts';
import { freshMongoDatabase } from '../support/mongo.ts';

const database = freshMongoDatabase();

orderReadModelContract('MongoDB (FerretDB)', async () => createMongoOrderReadModel(await database()));
checkpointStoreContract('MongoDB (FerretDB)', async () => createMongoCheckpointStore(await database()));
idempotencyStoreContract('MongoDB (FerretDB)', async () => createMongoIdempotencyStore(await database()));

describe('MongoDB checkpoints: one document for all positions', () => {
  it('reads a checkpoint an earlier version saved in its own document, until the new one is saved', async () => {
    const db = await database();
    const name = `legacy-${randomUUID()}`;
    await db.collection<{ _id: string; position: string }>('projection_checkpoints').insertOne({
      _id: name,
      position: '123',
    });
    const store = createMongoCheckpointStore(db);
    expect(await store.load(name)).toBe(123n);
    await store.save(name, 124n);
    expect(await store.load(name)).toBe(124n);
  });

  it('refuses a checkpoint name that cannot be a field name', async () => {
    const store = createMongoCheckpointStore(await database());
    await expect(store.save('orders.v2', 1n)).rejects.toThrow(/cannot be a field name/);
  });
});
