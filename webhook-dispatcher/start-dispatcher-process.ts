import type { Logger } from 'pino';
import { openServerStores } from '../assembly/server-stores.ts';
import { createKafkaEventBus } from '../infrastructure/bus/kafka-event-bus.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { countingAppends } from '../infrastructure/event-store/counting-appends.ts';
import { startOperationsServer } from '../infrastructure/http/operations-server.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { pingCheck } from '../infrastructure/operations/readiness.ts';
import { createCheckpointProgress } from '../infrastructure/event-sourcing/checkpoint-progress.ts';
import { subscriptionProjectionName } from '../projections/projection-names.ts';
import type { DispatcherConfig } from './config.ts';
import { openKeyring } from '../infrastructure/personal-data/open-keyring.ts';
import { createSecretCipher, resolveSecretKey } from '../infrastructure/crypto/secret-cipher.ts';
import { deliverySettings, subscriptionsReachedBy } from './delivery-settings.ts';
import { startWebhookDispatcher } from './start-webhook-dispatcher.ts';

export type DispatcherProcessDeps = { config: DispatcherConfig; logger: Logger; clock: Clock };

/**
 * The webhook dispatcher process of the distributed mode: consumes the public events from Kafka in its
 * consumer group, hands them to the retry state in MongoDB, and delivers from there. The event log is
 * opened only to append a DisableSubscription when a receiver answers 410 Gone.
 */
export const startDispatcherProcess = async ({ config, logger, clock }: DispatcherProcessDeps) => {
  const metrics = createMetricsRegistry();
  // Appends only DisableSubscription, when a receiver answers 410 Gone.
  const server = await openServerStores(config, 'webhook-dispatcher', {
    wrapLog: (log) => countingAppends(log, metrics),
  });
  const { stores, eventStore } = server;
  const settings = config.webhooks;
  const subscriptionsProgress = createCheckpointProgress({
    checkpoints: stores.checkpoints(),
    projection: subscriptionProjectionName,
    pollIntervalMs: 20,
    onError: (error) => logger.warn({ err: error }, 'could not read the subscription projection checkpoint'),
  });
  const delivery = deliverySettings({ settings, clock, logger, metrics });
  const bus = createKafkaEventBus({ ...config.kafka, logger });
  const dispatcher = await startWebhookDispatcher({
    bus,
    topics: config.kafka.topics,
    group: config.kafka.group,
    leaseMs: config.leaseMs,
    subscriptions: await stores.subscriptions(),
    subscriptionsReached: subscriptionsReachedBy(subscriptionsProgress),
    queue: await stores.deliveryQueue(),
    log: await stores.deliveryLog(),
    cipher: createSecretCipher(resolveSecretKey(settings, null)),
    reveal: openKeyring({
      store: stores.dataKeys(),
      config: config.personalData,
      generatedKeyPath: null,
      logger,
    }).reveal,
    ...delivery,
    eventStore,
  });
  const http = await startOperationsServer({
    config,
    logger,
    metrics,
    checks: { ...server.readiness, kafka: pingCheck(bus.ping) },
  });
  logger.info({ url: http.url, group: config.kafka.group }, 'webhook dispatcher running');
  return {
    url: http.url,
    async stop() {
      await http.close();
      await dispatcher.stop();
      await bus.close();
      delivery.poster.close();
      subscriptionsProgress.stop();
      await server.close();
      logger.info('webhook dispatcher stopped');
    },
  };
};
