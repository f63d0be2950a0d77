import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { startDistributedTestService } from '../support/distributed-service.ts';
import { requiredServer } from '../support/integration-env.ts';
import { orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startWebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';
import { consistencyTokenFor, positionOfToken } from '../support/consistency-tokens.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';

// The reliability promises of the distributed mode, with real processes killed and a real Kafka stopped.
// Each test prints what it did and what it checked.

type Service = Awaited<ReturnType<typeof startDistributedTestService>>;
type Acknowledged = { order: OrderBody; token: bigint };

const report = (text: string) => process.stdout.write(`  [faults] ${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const start = async (env: Record<string, string> = {}) => {
  const service = await startDistributedTestService(
    { ...loadTestWriteLimits, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...env },
    { time: 'real' },
  );
  cleanups.push(() => service.stop());
  return service;
};

/** Customers each placing an order every `pauseMs`, until stopped; every 201 is recorded. */
const placeOrdersUntilStopped = async (service: Service, clients: number, pauseMs: number) => {
  const customers: { actor: OrderActor; addressId: string }[] = [];
  for (let index = 0; index < clients; index++) {
    const actor = await orderActor(service, ['customer']);
    customers.push({ actor, addressId: await actor.addAddress() });
  }
  const acknowledged: Acknowledged[] = [];
  let failures = 0;
  let stopped = false;
  const loops = customers.map(async ({ actor, addressId }) => {
    while (!stopped) {
      const response = await actor.post('/orders', {
        items: [{ productId: '1001', quantity: 1 }],
        shippingAddressId: addressId,
      });
      if (response.status === 201) {
        acknowledged.push({
          order: (await response.json()) as OrderBody,
          token: positionOfToken(response.headers.get('consistency-token')!),
        });
      } else {
        failures++;
        await response.body?.cancel();
      }
      await sleep(pauseMs);
    }
  });
  return {
    acknowledged,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return { acknowledged, failures };
    },
  };
};

/** The last acknowledged write's position, as a token of `reader`'s (the writes were a customer's). */
const lastToken = (
  service: { dataDir: string },
  acknowledged: readonly Acknowledged[],
  reader: { id: string },
) =>
  consistencyTokenFor(
    service,
    acknowledged.reduce((max, { token }) => (token > max ? token : max), 0n),
    reader.id,
  );

const createdOrderIds = (requests: readonly ReceivedWebhook[]) =>
  new Set(
    requests
      .filter((request) => request.json.type === 'order.created')
      .map((request) => request.json.data['id'] as string),
  );

describe('distributed mode under faults (four processes, FerretDB, Kafka)', () => {
  it('converges after kill -9 of the projections process under load: nothing missing, nothing doubled', async () => {
    // The read models catch up on a backlog after the restart: queries may wait that long for them.
    const service = await start({ CONSISTENCY_TIMEOUT_MS: '60000' });
    const load = await placeOrdersUntilStopped(service, 5, 20);
    await sleep(1500);
    await service.processes.stop('projections', 'SIGKILL');
    const atKill = load.acknowledged.length;
    await sleep(1500);
    await service.processes.start('projections');
    await sleep(1500);
    const { acknowledged, failures } = await load.stop();
    report(
      `placed orders from 5 clients (20 ms apart) for 4.5 s; killed projections (SIGKILL) after ${atKill} acknowledged ` +
        `orders and restarted it 1.5 s later; ${acknowledged.length} acknowledged, ${failures} refused`,
    );
    expect(failures).toBe(0);
    expect(acknowledged.length).toBeGreaterThan(atKill);

    const staff = await orderActor(service, ['staff']);
    const caughtUp = performance.now();
    const listing = await staff.get('/orders?perPage=1', {
      'Consistency-Token': lastToken(service, acknowledged, staff),
    });
    expect(listing.status).toBe(200);
    report(
      `the read models reached the last acknowledged write ${Math.round(performance.now() - caughtUp)} ms later`,
    );
    const staffOrders = (await listing.json()) as { meta: { total: number } };
    // Staff see every order: exactly the acknowledged ones, none twice.
    expect(staffOrders.meta.total).toBe(acknowledged.length);
    for (const { order } of acknowledged) {
      const read = await staff.get(`/orders/${order.id}`);
      expect(read.status).toBe(200);
      // The order the customer was answered, but for what staff may do to it (`actions` are the reader's).
      const { actions: _staffActions, ...asRead } = (await read.json()) as { actions: string[] };
      const { actions: _customerActions, ...asAnswered } = order as { actions?: string[] };
      expect(asRead).toEqual(asAnswered);
    }
    // And the read model is what a replay of the whole log builds (what an auditor runs).
    const verify = await runAdmin(['projections:verify'], service.adminEnv);
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
    report(
      `checked: the listing counts ${staffOrders.meta.total} orders, each of the ${acknowledged.length} ` +
        `reads back as acknowledged, and projections:verify finds the read model equal to a replay`,
    );
  }, 180_000);

  it('delivers every event to every subscriber at least once when a dispatcher is killed mid-delivery', async () => {
    const service = await start({
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_LEASE_MS: '4000',
    });
    await service.processes.start('webhook-dispatcher', 'second-dispatcher');
    // Slow receivers keep deliveries in flight when the dispatcher dies.
    const receivers = [
      await startWebhookReceiver(() => ({ status: 200, delayMs: 100 })),
      await startWebhookReceiver(() => ({ status: 200, delayMs: 100 })),
    ];
    for (const receiver of receivers) cleanups.push(() => receiver.stop());
    const admin = await webhookAdmin(service);
    for (const receiver of receivers) await admin.register(receiver.url, ['order.created']);

    const customer = await orderActor(service, ['customer']);
    const addressId = await customer.addAddress();
    const orders = 40;
    const placed = new Set<string>();
    for (let index = 0; index < orders; index++) {
      const response = await customer.post('/orders', {
        items: [{ productId: '1001', quantity: 1 }],
        shippingAddressId: addressId,
      });
      expect(response.status).toBe(201);
      placed.add(((await response.json()) as OrderBody).id);
    }
    await receivers[0]!.waitFor((all) => all.length >= 5, 30_000);
    const deliveredBefore = receivers.map((receiver) => createdOrderIds(receiver.received).size);
    await service.processes.stop('webhook-dispatcher', 'SIGKILL');
    report(
      `two dispatchers in one group; ${orders} orders, two subscribers answering after 100 ms; killed one ` +
        `dispatcher (SIGKILL) when the subscribers had ${deliveredBefore.join(' and ')} orders`,
    );

    for (const receiver of receivers) {
      await receiver.waitFor((all) => createdOrderIds(all).size === placed.size, 60_000);
      expect(createdOrderIds(receiver.received)).toEqual(placed);
    }
    const duplicates = receivers.map((receiver) => receiver.received.length - placed.size);
    report(
      `checked: each subscriber received all ${placed.size} order.created events ` +
        `(${duplicates.join(' and ')} delivered more than once, allowed: at least once)`,
    );
  });

  it('relays everything appended while Kafka was stopped for 10 s, once it is back', async () => {
    const service = await start();
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.stop());
    const admin = await webhookAdmin(service);
    await admin.register(receiver.url, ['order.created']);
    const customer = await orderActor(service, ['customer']);
    const addressId = await customer.addAddress();
    const place = async () => {
      const response = await customer.post('/orders', {
        items: [{ productId: '1001', quantity: 1 }],
        shippingAddressId: addressId,
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as OrderBody).id;
    };
    const placed = new Set([await place()]);
    await receiver.waitFor((all) => createdOrderIds(all).size === 1, 30_000);

    await services('kafka-stop');
    const stoppedAt = performance.now();
    let kafkaStopped = true;
    cleanups.push(async () => {
      if (kafkaStopped) await services('kafka-start');
    });
    // Orders keep being accepted: they are in the log, which is the outbox.
    for (let index = 0; index < 20; index++) {
      placed.add(await place());
      await sleep(250);
    }
    await sleep(Math.max(0, 10_000 - (performance.now() - stoppedAt)));
    const deliveredWhileStopped = createdOrderIds(receiver.received).size;
    const stoppedFor = (performance.now() - stoppedAt) / 1000;
    await services('kafka-start');
    kafkaStopped = false;
    report(
      `stopped Kafka for ${stoppedFor.toFixed(1)} s (and its restart) while 20 orders were ` +
        `placed (all 201); ${deliveredWhileStopped} of ${placed.size} had reached the subscriber by then`,
    );

    await receiver.waitFor((all) => createdOrderIds(all).size === placed.size, 90_000);
    expect(createdOrderIds(receiver.received)).toEqual(placed);
    report(`checked: after Kafka came back, the subscriber received all ${placed.size} order.created events`);
  }, 180_000);

  it('puts a message it cannot read on the dead-letter topic and goes on delivering', async () => {
    const service = await start();
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.stop());
    const admin = await webhookAdmin(service);
    await admin.register(receiver.url, ['order.created']);
    const kafka = new Kafka({ brokers: [requiredServer('KAFKA_BROKERS')], logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    const { env } = service.processes;
    await producer.send({
      topic: env['KAFKA_TOPIC_ORDER_EVENTS']!,
      messages: [{ key: 'poison', value: '{"not": "an order event"' }],
    });
    const customer = await orderActor(service, ['customer']);
    const { order } = await customer.placeOrder();
    await receiver.waitFor((all) => createdOrderIds(all).has(order.id), 30_000);

    const consumer = kafka.consumer({ groupId: `dead-letter-reader-${order.id}` });
    await consumer.connect();
    cleanups.push(() => consumer.disconnect());
    await consumer.subscribe({ topic: env['KAFKA_TOPIC_DEAD_LETTER']!, fromBeginning: true });
    const letters: unknown[] = [];
    await consumer.run({
      eachMessage: async ({ message }) => {
        letters.push(JSON.parse(message.value!.toString()));
      },
    });
    await expect.poll(() => letters.length, { timeout: 30_000 }).toBe(1);
    expect(letters[0]).toMatchObject({
      reason: 'the value is not JSON',
      topic: env['KAFKA_TOPIC_ORDER_EVENTS'],
      key: 'poison',
      value: '{"not": "an order event"',
    });
    report(
      'published an unreadable message; it reached the dead-letter topic and the next order was delivered',
    );
  });
});

const services = async (command: 'kafka-stop' | 'kafka-start') => {
  await promisify(execFile)('scripts/services.sh', [command], { timeout: 120_000 });
};
