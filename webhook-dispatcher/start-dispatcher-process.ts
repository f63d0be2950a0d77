import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createKafkaEventBus } from '../infrastructure/bus/kafka-event-bus.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { countingAppends } from '../infrastructure/event-store/counting-appends.ts';
import { openEventLog } from '../infrastructure/event-store/open-event-log.ts';
import { startOperationsServer } from '../infrastructure/http/operations-server.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';
import { pingCheck } from '../infrastructure/operations/readiness.ts';
import { eventLogCheck } from '../infrastructure/operations/store-checks.ts';
import { createCheckpointProgress } from '../infrastructure/event-sourcing/checkpoint-progress.ts';
import { createMongoCheckpointStore } from '../infrastructure/event-sourcing/mongo-checkpoint-store.ts';
import { createMongoWebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/mongo-subscription-read-model.ts';
import { subscriptionProjectionName } from '../projections/projection-names.ts';
import type { DispatcherConfig } from './config.ts';
import { createDeliveryMetrics } from './delivery-metrics.ts';
import { createMongoDeliveryLog } from '../webhooks/deliveries/mongo-delivery-log.ts';
import { createMongoDeliveryQueue } from '../webhooks/deliveries/mongo-delivery-queue.ts';
import { createWebhookPoster } from '../infrastructure/outbound-http/webhook-poster.ts';
import { createRetryPolicy } from './retry-policy.ts';
import { openKeyring } from '../infrastructure/personal-data/open-keyring.ts';
import { createMongoDataKeyStore } from '../infrastructure/personal-data/mongo-data-key-store.ts';
import { createSecretCipher, resolveSecretKey } from '../infrastructure/crypto/secret-cipher.ts';
import { startWebhookDispatcher } from './start-webhook-dispatcher.ts';
import { webhookTargets } from '../infrastructure/outbound-http/webhook-targets.ts';

export type DispatcherProcessDeps = { config: DispatcherConfig; logger: Logger; clock: Clock };

/** How long the dispatcher waits for the subscription read model to reach an event before retrying it. */
const subscriptionsWaitMs = 30_000;

/**
 * The webhook dispatcher process of the distributed mode: consumes the public events from Kafka in its
 * consumer group, hands them to the retry state in MongoDB, and delivers from there. The event log is
 * opened only to append a DisableSubscription when a receiver answers 410 Gone.
 */
export const startDispatcherProcess = async ({ config, logger, clock }: DispatcherProcessDeps) => {
  const metrics = createMetricsRegistry();
  const mongo = await connectMongo(config.mongo);
  // Appends only DisableSubscription, when a receiver answers 410 Gone.
  const eventStore = countingAppends(await openEventLog(config.eventLog, 'webhook-dispatcher'), metrics);
  const { db } = mongo;
  const settings = config.webhooks;
  const subscriptionsProgress = createCheckpointProgress({
    checkpoints: createMongoCheckpointStore(db),
    projection: subscriptionProjectionName,
    pollIntervalMs: 20,
    onError: (error) => logger.warn({ err: error }, 'could not read the subscription projection checkpoint'),
  });
  const poster = createWebhookPoster({ ...webhookTargets(settings, logger), timeoutMs: settings.timeoutMs });
  const bus = createKafkaEventBus({
    brokers: config.kafka.brokers,
    clientId: config.kafka.clientId,
    partitions: config.kafka.partitions,
    sessionTimeoutMs: config.kafka.sessionTimeoutMs,
    logger,
  });
  const dispatcher = await startWebhookDispatcher({
    bus,
    topics: config.kafka.topics,
    group: config.kafka.group,
    leaseMs: config.leaseMs,
    subscriptions: await createMongoWebhookSubscriptionReadModel(db),
    subscriptionsReached: async (position) => {
      if (!(await subscriptionsProgress.waitFor(position, subscriptionsWaitMs))) {
        throw new Error(`the subscription projection has not reached ${position}`);
      }
    },
    queue: await createMongoDeliveryQueue(db),
    log: await createMongoDeliveryLog(db),
    cipher: createSecretCipher(resolveSecretKey(settings, null)),
    reveal: openKeyring({
      store: createMongoDataKeyStore(db),
      config: config.personalData,
      generatedKeyPath: null,
      logger,
    }).reveal,
    poster,
    retryPolicy: createRetryPolicy({ scheduleMs: settings.retryScheduleMs }),
    eventStore,
    now: () => clock.now(),
    newId: randomUUID,
    logger,
    metrics: createDeliveryMetrics(metrics),
  });
  const http = await startOperationsServer({
    config,
    logger,
    metrics,
    checks: {
      eventLog: eventLogCheck(eventStore),
      mongodb: pingCheck(mongo.ping),
      kafka: pingCheck(bus.ping),
    },
  });
  logger.info({ url: http.url, group: config.kafka.group }, 'webhook dispatcher running');
  return {
    url: http.url,
    async stop() {
      await http.close();
      await dispatcher.stop();
      await bus.close();
      poster.close();
      subscriptionsProgress.stop();
      await eventStore.close();
      await mongo.close();
      logger.info('webhook dispatcher stopped');
    },
  };
};
