import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { createMongoWebhookSubscriptionReadModel } from '../../projections/webhook-subscriptions/mongo-subscription-read-model.ts';
import { createMongoDeliveryLog } from '../../webhooks/deliveries/mongo-delivery-log.ts';
import { deliveryIdFor, type NewDelivery } from '../../webhooks/deliveries/delivery-queue.ts';
import { createMongoDeliveryQueue } from '../../webhooks/deliveries/mongo-delivery-queue.ts';
import { deliveryLogContract } from '../contracts/delivery-log.contract.ts';
import { deliveryQueueContract } from '../contracts/delivery-queue.contract.ts';
import { webhookSubscriptionReadModelContract } from '../contracts/webhook-subscription-read-model.contract.ts';
import { countCommands } from '../support/dispatcher-command-count.ts';
import { requiredServer } from '../support/integration-env.ts';
import { freshMongoDatabase } from '../support/mongo.ts';

const database = freshMongoDatabase();

webhookSubscriptionReadModelContract('MongoDB (FerretDB)', async () =>
  createMongoWebhookSubscriptionReadModel(await database()),
);
deliveryQueueContract('MongoDB (FerretDB)', async () => createMongoDeliveryQueue(await database()));
deliveryLogContract('MongoDB (FerretDB)', async () => createMongoDeliveryLog(await database()));

describe('MongoDB delivery queue: settled deliveries moved out of the main collection', () => {
  const t0 = Date.parse('2026-11-21T10:00:00.000Z');
  const aDelivery = (): NewDelivery => {
    const subscriptionId = randomUUID();
    const eventId = randomUUID();
    return {
      id: deliveryIdFor(subscriptionId, eventId),
      subscriptionId,
      eventId,
      eventType: 'order.created',
      orderingKey: randomUUID(),
      sequence: 0,
      body: '{}',
      nextAttemptAt: t0,
      createdAt: t0,
    };
  };

  it('still reads, refuses to accept again, and delivers again on request what was moved out', async () => {
    const db = await database();
    const first = await createMongoDeliveryQueue(db, { collection: 'moved_deliveries' });
    const delivery = aDelivery();
    await first.enqueue([delivery]);
    expect(await first.claim(delivery.id, { owner: 'a', now: t0, leaseUntil: t0 + 30_000 })).toBe(true);
    expect(await first.settle(delivery.id, 'a', { status: 'delivered' })).toBe(true);
    // An instance starting moves out what the others left settled in the main collection.
    const queue = await createMongoDeliveryQueue(db, { collection: 'moved_deliveries' });
    expect(await db.collection('moved_deliveries').findOne({ _id: delivery.id as never })).toBeNull();
    expect(await queue.get(delivery.id)).toMatchObject({ status: 'delivered', attempts: 1 });

    await queue.enqueue([delivery]);
    expect(await queue.get(delivery.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await queue.due({ now: t0, limit: 10 })).toEqual([]);

    expect(await queue.redeliver(delivery.id, t0 + 1000)).toBe(true);
    expect(await queue.get(delivery.id)).toMatchObject({ status: 'pending', attempts: 0, lease: null });
    expect((await queue.due({ now: t0 + 1000, limit: 10 })).map((d) => d.id)).toEqual([delivery.id]);
    expect(await queue.claim(delivery.id, { owner: 'b', now: t0 + 1000, leaseUntil: t0 + 5000 })).toBe(true);
    expect(await queue.settle(delivery.id, 'b', { status: 'dead' })).toBe(true);
    await createMongoDeliveryQueue(db, { collection: 'moved_deliveries' });
    expect(await queue.get(delivery.id)).toMatchObject({ status: 'dead', attempts: 1 });
  });

  it('moves out what it enqueued itself without inserting it into _accepted again, and still refuses it', async () => {
    // Each insert of an id already in _accepted is a failed statement on FerretDB's PostgreSQL backend (a
    // bulk insert that met a duplicate is retried there one document at a time, each logged as an error).
    const client = await MongoClient.connect(requiredServer('MONGODB_URL'), { monitorCommands: true });
    const counter = countCommands(client);
    try {
      const db = client.db((await database()).databaseName);
      const queue = await createMongoDeliveryQueue(db, { collection: 'own_deliveries' });
      // 100 settled: enough for a move without waiting for its timer.
      const batch = Array.from({ length: 100 }, aDelivery);
      const lease = { owner: 'a', until: Date.now() + 60_000 };
      expect(await queue.enqueue(batch, { owner: lease.owner, leaseUntil: lease.until })).toHaveLength(100);
      counter.mark();
      // 25 at a time, as the worker settles them: FerretDB 1.24 does not answer a bulk update of a hundred.
      for (let start = 0; start < batch.length; start += 25) {
        const settled = await queue.settleAll(
          batch.slice(start, start + 25).map((delivery) => ({
            delivery: { ...delivery, status: 'pending' as const, attempts: 0, lease },
            settlement: { status: 'delivered' as const },
            now: Date.now(),
          })),
        );
        expect(settled.every(Boolean)).toBe(true);
      }
      // due() starts the move in the background; it is done once the main collection is empty.
      await expect
        .poll(async () => {
          await queue.due({ now: t0, limit: 10 });
          return db.collection('own_deliveries').countDocuments();
        })
        .toBe(0);
      const toAccepted = counter
        .since()
        .filter(({ name, collection }) => name === 'insert' && collection === 'own_deliveries_accepted');
      expect(toAccepted, JSON.stringify(counter.summary())).toEqual([]);
      expect(await db.collection('own_deliveries_settled').countDocuments()).toBe(100);
      expect(await db.collection('own_deliveries_accepted').countDocuments()).toBe(100);

      expect(await queue.enqueue(batch, { owner: lease.owner, leaseUntil: lease.until })).toEqual([]);
      expect(await queue.due({ now: t0, limit: 10 })).toEqual([]);
      expect(await queue.get(batch[0]!.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      await client.close();
    }
  });
});
