import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createInProcessEventBus } from '../infrastructure/bus/in-process-event-bus.ts';
import type { Clock } from '../infrastructure/clock.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import { eventRelayMember, eventRelayName } from '../projections/relay/event-relay.ts';
import { startProjectionGroup } from '../infrastructure/event-sourcing/projection-group.ts';
import type { ProjectionProgress } from '../infrastructure/event-sourcing/projection-progress.ts';
import { subscriptionProjectionName } from '../projections/projection-names.ts';
import { createSqliteCheckpointStore } from '../infrastructure/event-sourcing/sqlite-checkpoint-store.ts';
import { createSqliteWebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/sqlite-subscription-read-model.ts';
import { createDeliveryMetrics } from '../webhook-dispatcher/delivery-metrics.ts';
import { createWebhookPoster } from '../infrastructure/outbound-http/webhook-poster.ts';
import { createRetryPolicy } from '../webhook-dispatcher/retry-policy.ts';
import { createSecretCipher, resolveSecretKey } from '../infrastructure/crypto/secret-cipher.ts';
import { createSqliteDeliveryLog } from '../webhooks/deliveries/sqlite-delivery-log.ts';
import { createSqliteDeliveryQueue } from '../webhooks/deliveries/sqlite-delivery-queue.ts';
import { startWebhookDispatcher } from '../webhook-dispatcher/start-webhook-dispatcher.ts';
import { webhookTargets } from '../infrastructure/outbound-http/webhook-targets.ts';
import type { EmbeddedConfig } from './config.ts';
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
  readStore,
  logger,
  clock,
  metrics,
  reveal,
}: {
  config: EmbeddedConfig;
  eventStore: EventStore;
  readStore: DatabaseSync;
  logger: Logger;
  clock: Clock;
  metrics: Registry;
  /** Opens the sealed personal fields of a webhook body as it is sent. */
  reveal: Reveal;
}) => {
  const settings = config.webhooks;
  const checkpoints = createSqliteCheckpointStore(readStore);
  const subscriptions = createSqliteWebhookSubscriptionReadModel(readStore);
  const cipher = createSecretCipher(
    resolveSecretKey(settings, join(config.dataDir, 'keys', 'webhook-secret-key')),
  );
  const targets = webhookTargets(settings, logger);
  const poster = createWebhookPoster({ ...targets, timeoutMs: settings.timeoutMs });
  const queue = createSqliteDeliveryQueue(readStore);
  // The only dispatcher on this data: leases a killed process left behind are nobody's now.
  await queue.releaseLeases();
  const deliveryLog = createSqliteDeliveryLog(readStore);
  const bus = createInProcessEventBus();
  /** The subscription projection's progress, once the group below follows the log (the dispatcher joins first). */
  const subscriptionProgress = Promise.withResolvers<ProjectionProgress>();

  const dispatcher = await startWebhookDispatcher({
    bus,
    topics: embeddedTopics,
    subscriptions,
    subscriptionsReached: async (position) => {
      if (!(await (await subscriptionProgress.promise).waitFor(position, 30_000))) {
        throw new Error(`the subscription projection has not reached ${position}`);
      }
    },
    queue,
    log: deliveryLog,
    cipher,
    reveal,
    poster,
    retryPolicy: createRetryPolicy({ scheduleMs: settings.retryScheduleMs }),
    eventStore,
    now: () => clock.now(),
    newId: randomUUID,
    logger,
    metrics: createDeliveryMetrics(metrics),
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
    /** What the feature's command half needs here. */
    commandSide: { cipher, checkUrl: targets.checkUrl },
    /** The retry state, which an admin's retry of a delivery reads. */
    deliveries: queue,
    /** What its query half reads. */
    querySide: { readModel: subscriptions, deliveryLog, progress: subscriptionProjection },
    async stop() {
      // The relay's batch in hand may be waiting (up to 30 s) for the subscription projection, which cannot
      // advance while the read store fails (a full or read-only disk): the group's stop ends such waits at
      // once. The batch then fails, and is relayed again at the next start (at least once).
      await group.stop();
      await dispatcher.stop();
      await bus.close();
      poster.close();
    },
  };
};
