import { randomBytes, randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookEventKind } from '../../domain/webhook-subscriptions/subscription.ts';
import { createInProcessEventBus } from '../../infrastructure/bus/in-process-event-bus.ts';
import type { EventBus } from '../../infrastructure/bus/event-bus.ts';
import { createSecretCipher, type SecretCipher } from '../../infrastructure/crypto/secret-cipher.ts';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import { generateWebhookSecret } from '../../infrastructure/outbound-http/standard-webhooks.ts';
import { createWebhookPoster } from '../../infrastructure/outbound-http/webhook-poster.ts';
import { createHostResolver } from '../../infrastructure/outbound-http/target-check.ts';
import type { PublicOrderEvent } from '../../projections/relay/public-events.ts';
import { createMongoDeliveryLog } from '../../webhooks/deliveries/mongo-delivery-log.ts';
import { createMongoDeliveryQueue } from '../../webhooks/deliveries/mongo-delivery-queue.ts';
import { createMongoWebhookSubscriptionReadModel } from '../../projections/webhook-subscriptions/mongo-subscription-read-model.ts';
import type { WebhookSubscriptionReadModel } from '../../projections/webhook-subscriptions/subscription-read-model.ts';
import { createDeliveryMetrics } from '../../webhook-dispatcher/delivery-metrics.ts';
import { createRetryPolicy } from '../../webhook-dispatcher/retry-policy.ts';
import { startWebhookDispatcher } from '../../webhook-dispatcher/start-webhook-dispatcher.ts';
import { countCommands } from '../support/dispatcher-command-count.ts';
import { requiredServer } from '../support/integration-env.ts';
import { recordedSubscriptionHistory, registerCommand } from '../support/subscription-history.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * The dispatcher's round trips to MongoDB (FerretDB here), counted with the driver's command monitoring: a
 * budget that holds on any engine, since on a real cluster each command is a network round trip.
 */
const topics = {
  orderEvents: 'order-events',
  webhookRequests: 'webhook-requests',
  deadLetter: 'dead-letter',
};
const subscribers = 3;
const orders = 30;

let client: MongoClient;
let db: Db;
let bus: EventBus;
let dispatcher: { stop(): Promise<void> } | undefined;
const receiver = await startWebhookReceiver();
let registeredAt = 0n;
let position = 0n;

const publish = async (kind: WebhookEventKind, count: number) => {
  const messages = Array.from({ length: count }, () => {
    const orderId = randomUUID();
    const event: PublicOrderEvent = {
      id: randomUUID(),
      type: kind,
      occurredAt: new Date().toISOString(),
      orderId,
      revision: 0,
      position: (++position).toString(),
      subscriptionsChangedAt: registeredAt.toString(),
      data: { id: orderId },
    };
    return { key: orderId, value: JSON.stringify(event) };
  });
  // One message a batch, as under a steady trickle of orders: the worst case for the budget.
  for (const message of messages) await bus.publish(topics.orderEvents, [message]);
};

const startDispatcher = async (safetyPollMs: number) => {
  const cipher = createSecretCipher(randomBytes(32));
  const subscriptions = await createMongoWebhookSubscriptionReadModel(db);
  for (let index = 0; index < subscribers; index++) {
    const { events } = recordedSubscriptionHistory((id) => [
      registerCommand(id, {
        url: `${receiver.url}/subscriber-${index}`,
        events: ['order.created'],
        secret: cipher.seal(generateWebhookSecret(), id),
      }),
    ]);
    await subscriptions.applyEvents(events);
    registeredAt = events.at(-1)!.position;
  }
  position = registeredAt;
  bus = createInProcessEventBus();
  dispatcher = await startMongoDispatcher(db, { bus, subscriptions, cipher, safetyPollMs });
};

/** A dispatcher on the MongoDB stores of `db`, delivering to receivers on loopback. */
const startMongoDispatcher = async (
  db: Db,
  {
    bus,
    subscriptions,
    cipher,
    safetyPollMs,
  }: {
    bus: EventBus;
    subscriptions: WebhookSubscriptionReadModel;
    cipher: SecretCipher;
    safetyPollMs: number;
  },
) =>
  startWebhookDispatcher({
    bus,
    topics,
    subscriptions,
    subscriptionsReached: async () => undefined,
    // These events carry no sealed personal fields: there is nothing to open.
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
    logger: pino({ level: 'silent' }),
    metrics: createDeliveryMetrics(new Registry()),
    safetyPollMs,
  });

/** Waits until the attempt log holds this many attempts: read through another client, not counted. */
const attemptsLogged = async (reader: Db, count: number) => {
  for (;;) {
    if ((await reader.collection('webhook_delivery_attempts').countDocuments()) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('the webhook dispatcher, counted in MongoDB commands', () => {
  let reader: MongoClient;
  let counter: ReturnType<typeof countCommands>;
  beforeAll(async () => {
    client = await MongoClient.connect(requiredServer('MONGODB_URL'), { monitorCommands: true });
    db = client.db(`test_${randomUUID().replaceAll('-', '')}`);
    reader = await MongoClient.connect(requiredServer('MONGODB_URL'));
    counter = countCommands(client);
    // No safety poll within the test: what is counted is what the work costs.
    await startDispatcher(3_600_000);
    // The first event reads the subscriptions once (and the dispatcher looked for leftovers on start).
    await publish('order.created', 1);
    await attemptsLogged(reader.db(db.databaseName), subscribers);
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await bus?.close();
    await db?.dropDatabase();
    await client?.close();
    await reader?.close();
    await receiver.stop();
  });

  it('delivers an event to each subscriber in at most 3 commands a delivery, reading nothing', async () => {
    counter.mark();
    const before = receiver.received.length;
    await publish('order.created', orders);
    await attemptsLogged(reader.db(db.databaseName), subscribers * (orders + 1));
    await receiver.waitFor((all) => all.length >= before + orders * subscribers, 30_000);
    const commands = counter.since();
    const deliveries = orders * subscribers;
    process.stdout.write(
      `  [round trips] ${orders} events one a batch x ${subscribers} subscribers: ${commands.length} commands, ` +
        `${(commands.length / deliveries).toFixed(2)} a delivery: ${JSON.stringify(counter.summary())}\n`,
    );
    expect(commands.length, JSON.stringify(counter.summary())).toBeLessThanOrEqual(3 * deliveries);
    // The subscriptions come from memory, deliveries are claimed by their insert: no reads at all.
    expect(commands.filter(({ name }) => ['find', 'count', 'aggregate', 'getMore'].includes(name))).toEqual(
      [],
    );
    // Every delivery's attempt logged and settled, many to a command when they finish together.
    const perCollection = (names: string[], collection: string) =>
      commands.filter((command) => names.includes(command.name) && command.collection === collection).length;
    expect(perCollection(['insert'], 'webhook_delivery_attempts')).toBeLessThanOrEqual(deliveries);
    expect(perCollection(['update', 'findAndModify'], 'webhook_deliveries')).toBeLessThanOrEqual(deliveries);
    const stored = reader.db(db.databaseName);
    expect(await stored.collection('webhook_delivery_attempts').countDocuments()).toBe(
      subscribers * (orders + 1),
    );
    expect(await stored.collection('webhook_deliveries').countDocuments({ status: 'pending' })).toBe(0);
  });

  it('reads nothing for events nobody subscribed to', async () => {
    counter.mark();
    await publish('payment.received', 20);
    // The in-process bus hands each message over before publish resolves; one more turn for the handler.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(counter.since(), JSON.stringify(counter.summary())).toEqual([]);
  });

  it('sends no command while nothing is due', async () => {
    counter.mark();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(counter.since(), JSON.stringify(counter.summary())).toEqual([]);
  });
});

describe('the webhook dispatcher idle, with its safety poll', () => {
  let watched: MongoClient;
  let watchedDb: Db;
  let poller: { stop(): Promise<void> } | undefined;
  afterAll(async () => {
    await poller?.stop();
    await watchedDb?.dropDatabase();
    await watched?.close();
  });

  it('sends only the safety poll while nothing is due: the due deliveries and the subscriptions', async () => {
    watched = await MongoClient.connect(requiredServer('MONGODB_URL'), { monitorCommands: true });
    watchedDb = watched.db(`test_${randomUUID().replaceAll('-', '')}`);
    const counter = countCommands(watched);
    const polls: number[] = [];
    watched.on('commandStarted', (event) => {
      if (event.commandName === 'find' && event.command['find'] === 'webhook_subscriptions') polls.push(1);
    });
    poller = await startMongoDispatcher(watchedDb, {
      bus: createInProcessEventBus(),
      subscriptions: await createMongoWebhookSubscriptionReadModel(watchedDb),
      cipher: createSecretCipher(randomBytes(32)),
      safetyPollMs: 200,
    });
    // Past the start (index creation, the look for leftovers): from here on, only the poll.
    while (polls.length < 1) await new Promise((resolve) => setTimeout(resolve, 50));
    counter.mark();
    const from = polls.length;
    while (polls.length < from + 3) await new Promise((resolve) => setTimeout(resolve, 50));
    const commands = counter.since();
    process.stdout.write(
      `  [round trips] idle, safety poll every 200 ms: ${JSON.stringify(counter.summary())} over 3 polls\n`,
    );
    expect(
      commands.filter(
        ({ name, collection }) =>
          !(name === 'find' && ['webhook_deliveries', 'webhook_subscriptions'].includes(collection ?? '')),
      ),
    ).toEqual([]);
    // Each poll: the subscriptions once, the due deliveries once (FerretDB: one scan of the pending ones).
    expect(commands.length).toBeLessThanOrEqual(2 * (polls.length - from + 1));
  });
});
