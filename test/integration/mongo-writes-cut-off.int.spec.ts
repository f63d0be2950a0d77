import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryIdFor, type NewDelivery } from '../../webhooks/deliveries/delivery-queue.ts';
import { createMongoDeliveryLog } from '../../webhooks/deliveries/mongo-delivery-log.ts';
import { createMongoDeliveryQueue } from '../../webhooks/deliveries/mongo-delivery-queue.ts';
import type { DeliveryAttempt } from '../../webhooks/deliveries/delivery-log.ts';
import { requiredServer } from '../support/integration-env.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// The stores that insert many documents at once and treat "there already" as done, reached through a
// forwarder that is cut while their inserts are under way: a write they say they made must be there. The
// driver reports a command lost mid-way as a bulk write error with no write errors at all, which an "every
// write error a duplicate" check took for success (webhooks acknowledged to Kafka and never delivered,
// seen when FerretDB was killed under load).

const direct = new URL(requiredServer('MONGODB_URL'));
const databaseName = `test_${randomUUID().replaceAll('-', '')}`;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
let proxied: MongoClient;
let reader: MongoClient;

beforeAll(async () => {
  proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
  const url = new URL(direct);
  url.port = String(proxy.port);
  url.searchParams.set('serverSelectionTimeoutMS', '2000');
  proxied = await MongoClient.connect(url.toString());
  reader = await MongoClient.connect(direct.toString());
});
afterAll(async () => {
  await reader?.db(databaseName).dropDatabase();
  await proxied?.close();
  await reader?.close();
  await proxy?.close();
});

/**
 * Runs `write` from four loops while the forwarder is cut and healed `cuts` times: what each resolved write
 * returned, and how many writes failed (each cut must have met some, or the check below proves nothing).
 */
const writeWhileCut = async <T>(write: () => Promise<T>, cuts = 6) => {
  const done: T[] = [];
  let failed = 0;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      try {
        done.push(await write());
      } catch {
        failed++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const loops = [loop(), loop(), loop(), loop()];
  for (let cut = 0; cut < cuts; cut++) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    await proxy.cut();
    await proxy.heal();
  }
  stop = true;
  await Promise.all(loops);
  return { done, failed };
};

const body = JSON.stringify({ type: 'order.created', data: { note: 'x'.repeat(2000) } });
const aDelivery = (): NewDelivery => {
  const subscriptionId = randomUUID();
  const eventId = randomUUID();
  const at = Date.now();
  return {
    id: deliveryIdFor(subscriptionId, eventId),
    subscriptionId,
    eventId,
    eventType: 'order.created',
    orderingKey: randomUUID(),
    sequence: 0,
    body,
    nextAttemptAt: at,
    createdAt: at,
  };
};

describe('MongoDB stores whose connection is cut while they insert', () => {
  it('the delivery queue: every delivery an enqueue took is in the store', async () => {
    const queue = await createMongoDeliveryQueue(proxied.db(databaseName));
    const { done, failed } = await writeWhileCut(() =>
      queue.enqueue([aDelivery(), aDelivery()], { owner: 'a', leaseUntil: Date.now() + 60_000 }),
    );
    const taken = done.flat();
    expect(failed, 'inserts the cuts interrupted').toBeGreaterThan(0);
    expect(taken.length).toBeGreaterThan(0);
    const stored = reader.db(databaseName).collection('webhook_deliveries');
    const there = new Set(
      (await stored.find({ _id: { $in: taken as never[] } }, { projection: { _id: 1 } }).toArray()).map(
        ({ _id }) => String(_id),
      ),
    );
    expect(taken.filter((id) => !there.has(id))).toEqual([]);
  });

  it('the delivery log: every attempt a recordAll resolved for is in the log', async () => {
    const log = await createMongoDeliveryLog(proxied.db(databaseName));
    const anAttempt = (): DeliveryAttempt => ({
      id: randomUUID(),
      deliveryId: randomUUID(),
      subscriptionId: randomUUID(),
      eventId: randomUUID(),
      eventType: 'order.created',
      attempt: 1,
      attemptedAt: new Date().toISOString(),
      durationMs: 5,
      statusCode: 204,
      outcome: 'delivered',
      error: null,
      responseBody: 'x'.repeat(2000),
      responseBodyTruncated: false,
      nextAttemptAt: null,
      deadLettered: false,
    });
    const { done, failed } = await writeWhileCut(async () => {
      const batch = [anAttempt(), anAttempt(), anAttempt()];
      await log.recordAll(batch);
      return batch.map(({ id }) => id);
    });
    const recorded = done.flat();
    expect(failed, 'inserts the cuts interrupted').toBeGreaterThan(0);
    const stored = reader.db(databaseName).collection('webhook_delivery_attempts');
    const there = new Set(
      (await stored.find({ _id: { $in: recorded as never[] } }, { projection: { _id: 1 } }).toArray()).map(
        ({ _id }) => String(_id),
      ),
    );
    expect(recorded.filter((id) => !there.has(id))).toEqual([]);
  });
});
