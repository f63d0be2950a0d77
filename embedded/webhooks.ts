import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createInProcessEventBus } from '../infrastructure/bus/in-process-event-bus.ts';
import type { Clock } from '../infrastructure/clock.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import { eventRelayMember, eventRelayName } from '../projections/relay/event-relay.ts';
import { startProjectionGroup } from '../infrastructure/event-sourcing/projection-group.ts';
import type { ProjectionProgress } from '../infrastructure/event-sourcing/projection-progress.ts';
import { subscriptionProjectionName } from '../projections/projection-names.ts';
import { deliverySettings, subscriptionsReachedBy } from '../webhook-dispatcher/delivery-settings.ts';
import { startWebhookDispatcher } from '../webhook-dispatcher/start-webhook-dispatcher.ts';
import type { EmbeddedConfig } from './config.ts';
import type { ReadStores } from '../assembly/read-stores.ts';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import type { Reveal } from '../infrastructure/personal-data/revealed.ts';
import { subscriptionsProjection } from '../projections/webhook-subscriptions/subscriptions-projection.ts';

/** Topic names on the in-process bus (the same defaults as Kafka's). */
export const embeddedTopics = {
  orderEvents: 'order-events',
  webhookRequests: 'webhook-requests',
  deadLetter: 'webhook-dispatcher.dead-letter',
};

/**
 * Webhooks in the embedded default: the subscription projection, the relay from the log onto an in-process
 * bus, the dispatcher with its retry state in the read store; and what the feature's routes use here.
 */
export const startEmbeddedWebhooks = async ({
  config,
  eventStore,
  stores,
  security: { webhookCipher: cipher, keyring },
  logger,
  clock,
  metrics,
}: {
  config: EmbeddedConfig;
  eventStore: EventStore;
  stores: ReadStores;
  security: {
    /** Opens the subscriptions' signing secrets. */
    webhookCipher: SecretCipher;
    /** Opens the sealed personal fields of a webhook body as it is sent. */
    keyring: { reveal: Reveal };
  };
  logger: Logger;
  clock: Clock;
  metrics: Registry;
}) => {
  const settings = config.webhooks;
  const checkpoints = stores.checkpoints();
  const subscriptions = await stores.subscriptions();
  const delivery = deliverySettings({ settings, clock, logger, metrics });
  const queue = await stores.deliveryQueue();
  // The only dispatcher on this data: leases a killed process left behind are nobody's now.
  await queue.releaseLeases();
  const deliveryLog = await stores.deliveryLog();
  const bus = createInProcessEventBus();
  /** The subscription projection's progress, once the group below follows the log (the dispatcher joins first). */
  const subscriptionProgress = Promise.withResolvers<ProjectionProgress>();

  const dispatcher = await startWebhookDispatcher({
    bus,
    topics: embeddedTopics,
    subscriptions,
    subscriptionsReached: subscriptionsReachedBy({
      waitFor: async (position, timeoutMs) =>
        (await subscriptionProgress.promise).waitFor(position, timeoutMs),
    }),
    queue,
    log: deliveryLog,
    cipher,
    reveal: keyring.reveal,
    ...delivery,
    eventStore,
  });
  // The subscription projection and the relay follow the log as one group: one read of it for both, and
  // the relay hands on a batch once the subscriptions reflect it. The dispatcher joins the bus before the
  // relay publishes: the in-process bus keeps nothing.
  const group = await startProjectionGroup({
    name: 'webhooks',
    eventStore,
    checkpoints,
    logger,
    // Under a stream of orders, a batch (and a checkpoint write) per interval rather than per event.
    minBatchIntervalMs: config.projectionBatchIntervalMs,
    members: [
      subscriptionsProjection(subscriptions),
      eventRelayMember({ eventStore, bus, topics: embeddedTopics }),
    ],
  });
  const subscriptionProjection = group.progress[subscriptionProjectionName]!;
  subscriptionProgress.resolve(subscriptionProjection);
  const relay = group.progress[eventRelayName]!;

  return {
    /** Where the subscription projection and the relay are in the log. */
    positions: {
      subscriptions: async () => subscriptionProjection.position(),
      relay: async () => relay.position(),
    },
    /** Refuses a URL webhooks may not target, for the feature's command half. */
    checkUrl: delivery.checkUrl,
    /** The retry state, which an admin's retry of a delivery reads. */
    deliveries: queue,
    /** What its query half reads. */
    querySide: {
      readModel: subscriptions,
      deliveryLog,
      deliveryQueue: queue,
      progress: subscriptionProjection,
    },
    async stop() {
      // The relay's batch in hand may be waiting (up to 30 s) for the subscription projection, which cannot
      // advance while the read store fails (a full or read-only disk): the group's stop ends such waits at
      // once. The batch then fails, and is relayed again at the next start (at least once).
      await group.stop();
      await dispatcher.stop();
      await bus.close();
      delivery.poster.close();
    },
  };
};
