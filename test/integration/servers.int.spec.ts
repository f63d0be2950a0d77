import { randomUUID } from 'node:crypto';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { requiredServer } from '../support/integration-env.ts';

// Proof that the real servers answer through the project's own clients, before any contract suite uses them.
describe('the real servers of the integration suite', () => {
  it('MongoDB-compatible server (FerretDB): the mongodb driver writes a document and reads it back', async () => {
    const client = await MongoClient.connect(requiredServer('MONGODB_URL'));
    try {
      const db = client.db(`proof_${randomUUID().replaceAll('-', '')}`);
      const orders = db.collection<{ _id: string; status: string; position: string }>('orders');
      await orders.createIndex({ status: 1, _id: 1 });
      await orders.insertOne({ _id: 'order-1', status: 'pending', position: (2n ** 60n).toString() });
      expect(await orders.findOne({ _id: 'order-1' })).toEqual({
        _id: 'order-1',
        status: 'pending',
        position: '1152921504606846976',
      });
      await db.dropDatabase();
    } finally {
      await client.close();
    }
  });

  it('Kafka: kafkajs creates a topic, produces a keyed message and consumes it', async () => {
    const kafka = new Kafka({
      clientId: 'integration-proof',
      brokers: requiredServer('KAFKA_BROKERS').split(','),
      logLevel: logLevel.NOTHING,
    });
    const topic = `proof-${randomUUID()}`;
    const admin = kafka.admin();
    await admin.connect();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true });
    const consumer = kafka.consumer({ groupId: `proof-${randomUUID()}` });
    try {
      expect(await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true })).toBe(
        true,
      );
      await producer.connect();
      await producer.send({
        topic,
        messages: [{ key: 'order-1', value: JSON.stringify({ type: 'order.created' }) }],
      });

      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const received = await new Promise<{ key: string; value: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no message within 30 s')), 30_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            clearTimeout(timer);
            resolve({ key: message.key!.toString(), value: message.value!.toString() });
          },
        });
      });
      expect(received).toEqual({ key: 'order-1', value: '{"type":"order.created"}' });
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    }
  });
});
