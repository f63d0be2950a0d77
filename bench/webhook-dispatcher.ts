// The webhook dispatcher alone on MongoDB (MONGODB_URL: FerretDB here): public events published on an
// in-process bus at a steady rate, each delivered as order.created to N subscribers (real node:http
// receivers in this process), with the dispatcher's MongoDB adapters (retry state, attempt log,
// subscriptions). Measures, per webhook, the time from publishing the event to the receiver reading it, and
// counts the MongoDB commands the dispatcher sent per delivery (the driver's command monitoring). What the
// command API, the relay and Kafka add is in bench/webhooks.ts --mode distributed; this isolates the
// dispatcher, so that a checkout before and after a change of it can be compared in one session.
// Run: node bench/webhook-dispatcher.ts [--rate 50] [--duration 30] [--subscribers 3]
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { subscriptionDecider } from '../domain/webhook-subscriptions/subscription-decider.ts';
import { subscriptionStreamName } from '../domain/webhook-subscriptions/subscription.ts';
import { createInProcessEventBus } from '../infrastructure/bus/in-process-event-bus.ts';
import { createSecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import type { EventStore, RecordedEvent } from '../infrastructure/event-store/event-store.ts';
import { generateWebhookSecret } from '../infrastructure/outbound-http/standard-webhooks.ts';
import { createHostResolver } from '../infrastructure/outbound-http/target-check.ts';
import { createWebhookPoster } from '../infrastructure/outbound-http/webhook-poster.ts';
import { createMongoDeliveryLog } from '../webhooks/deliveries/mongo-delivery-log.ts';
import { createMongoDeliveryQueue } from '../webhooks/deliveries/mongo-delivery-queue.ts';
import { createMongoWebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/mongo-subscription-read-model.ts';
import { createDeliveryMetrics } from '../webhook-dispatcher/delivery-metrics.ts';
import { createRetryPolicy } from '../webhook-dispatcher/retry-policy.ts';
import { startWebhookDispatcher } from '../webhook-dispatcher/start-webhook-dispatcher.ts';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '50' },
    duration: { type: 'string', default: '30' },
    subscribers: { type: 'string', default: '3' },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.duration);
const subscriberCount = Number(values.subscribers);
const url = process.env['MONGODB_URL'];
if (!url) throw new Error('MONGODB_URL is not set: run `eval "$(scripts/services.sh env)"` first');

const topics = {
  orderEvents: 'order-events',
  webhookRequests: 'webhook-requests',
  deadLetter: 'dead-letter',
};
const client = await MongoClient.connect(url, { monitorCommands: true });
const db = client.db(`bench_dispatcher_${randomUUID().replaceAll('-', '')}`);
let commands = 0;
let counting = false;
client.on('commandStarted', () => {
  if (counting) commands++;
});

const published = new Map<string, number>();
const latencies: number[] = [];
const receiver = createServer((incoming, response) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } };
    latencies.push(performance.now() - published.get(data.id)!);
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

// The subscriptions, as the subscription projection would have stored them.
const cipher = createSecretCipher(randomBytes(32));
const subscriptions = await createMongoWebhookSubscriptionReadModel(db);
let position = 1_000n;
for (let index = 0; index < subscriberCount; index++) {
  const subscriptionId = randomUUID();
  const [event] = subscriptionDecider.decide(
    {
      type: 'RegisterSubscription',
      data: {
        subscriptionId,
        url: `${receiverUrl}/subscriber-${index}`,
        events: ['order.created'],
        description: null,
        secret: cipher.seal(generateWebhookSecret(), subscriptionId),
        registeredAt: new Date().toISOString(),
      },
    },
    subscriptionDecider.initialState(),
  );
  const recorded: RecordedEvent = {
    id: randomUUID(),
    type: event!.type,
    data: event!.data as unknown as Record<string, unknown>,
    metadata: { actor: null, correlationId: randomUUID(), causationId: null, occurredAt: '' },
    streamId: subscriptionStreamName(subscriptionId),
    revision: 0,
    position: ++position,
  };
  await subscriptions.applyEvents([recorded]);
}
const registeredAt = position;

const bus = createInProcessEventBus();
const dispatcher = await startWebhookDispatcher({
  bus,
  topics,
  subscriptions,
  subscriptionsReached: async () => undefined,
  // The bench's events carry no sealed personal fields: there is nothing to open.
  reveal: async (json: string) => json,
  queue: await createMongoDeliveryQueue(db),
  log: await createMongoDeliveryLog(db),
  cipher,
  poster: createWebhookPoster({
    policy: { allowPrivateNetworks: true },
    resolve: createHostResolver({ dnsServers: null }),
  }),
  retryPolicy: createRetryPolicy(),
  eventStore: {} as EventStore,
  now: () => new Date(),
  newId: randomUUID,
  logger: pino({ level: 'warn' }),
  metrics: createDeliveryMetrics(new Registry()),
});

const eventFor = (orderId: string) => {
  const event = {
    id: randomUUID(),
    type: 'order.created',
    occurredAt: new Date().toISOString(),
    orderId,
    revision: 0,
    position: (++position).toString(),
    subscriptionsChangedAt: registeredAt.toString(),
    data: { id: orderId },
  };
  published.set(orderId, performance.now());
  return { key: orderId, value: JSON.stringify(event) };
};
const publish = (orderId: string) => bus.publish(topics.orderEvents, [eventFor(orderId)]);

/**
 * As the relay publishes: whatever accumulated, in one publish, once the previous one resolved (on Kafka,
 * a consumer's batch is likewise what its partition accumulated).
 */
let waiting: { key: string; value: string }[] = [];
let publishing: Promise<void> | null = null;
const relay = (orderId: string) => {
  waiting.push(eventFor(orderId));
  publishing ??= (async () => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      await bus.publish(topics.orderEvents, batch);
    }
    publishing = null;
  })();
};

// One event first: the dispatcher's start (its look for leftovers, its first read of the subscriptions).
await publish(randomUUID());
while (latencies.length < subscriberCount) await new Promise((resolve) => setTimeout(resolve, 20));
latencies.length = 0;

counting = true;
const events = rate * seconds;
const started = performance.now();
// Open loop: one event every 1000/rate ms, whatever the dispatcher does.
for (let index = 0; index < events; index++) {
  const wait = started + (index * 1000) / rate - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  relay(randomUUID());
}
while (publishing !== null) await publishing;
const expected = events * subscriberCount;
const deadline = performance.now() + 30_000;
while (latencies.length < expected && performance.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 50));
}
counting = false;

const sorted = [...latencies].sort((a, b) => a - b);
const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const load = (await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(
  `dispatcher alone on MongoDB: ${rate} events/s for ${seconds} s x ${subscriberCount} subscribers ` +
    `(load average ${load})`,
);
console.table({
  dispatcher: {
    webhooks: expected,
    received: latencies.length,
    missing: expected - latencies.length,
    'p50 ms': Number(at(0.5).toFixed(1)),
    'p99 ms': Number(at(0.99).toFixed(1)),
    'max ms': Number((sorted.at(-1) ?? NaN).toFixed(1)),
    'commands/delivery': Number((commands / Math.max(1, latencies.length)).toFixed(2)),
  },
});
await dispatcher.stop();
await bus.close();
await db.dropDatabase();
await client.close();
receiver.close();
