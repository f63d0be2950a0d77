import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMongoWebhookSubscriptionReadModel } from '../../projections/webhook-subscriptions/mongo-subscription-read-model.ts';
import { createMongoDeliveryLog } from '../../projections/webhook-deliveries/mongo-delivery-log.ts';
import { deliveryIdFor, type NewDelivery } from '../../projections/webhook-deliveries/delivery-queue.ts';
import { createMongoDeliveryQueue } from '../../projections/webhook-deliveries/mongo-delivery-queue.ts';
import { deliveryLogContract } from '../contracts/delivery-log.contract.ts';
import { deliveryQueueContract } from '../contracts/delivery-queue.contract.ts';
import { webhookSubscriptionReadModelContract } from '../contracts/webhook-subscription-read-model.contract.ts';
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
});
