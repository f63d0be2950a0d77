import type { Logger } from 'pino';
import { createKafkaEventBus } from '../infrastructure/bus/kafka-event-bus.ts';
import { openEventLog } from '../infrastructure/event-store/open-event-log.ts';
import { startOperationsServer } from '../infrastructure/http/operations-server.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';
import { createReadiness, pingCheck } from '../infrastructure/operations/readiness.ts';
import { eventLogCheck } from '../infrastructure/operations/store-checks.ts';
import type { ProjectionsConfig } from './config.ts';
import { startEventRelay } from './relay/event-relay.ts';
import { createMongoCheckpointStore } from '../infrastructure/event-sourcing/mongo-checkpoint-store.ts';
import { createMongoOrderReadModel } from './orders/mongo-order-read-model.ts';
import { createMongoWebhookSubscriptionReadModel } from './webhook-subscriptions/mongo-subscription-read-model.ts';
import { projectionLagCheck } from '../infrastructure/event-sourcing/projection-lag.ts';
import { registerProjectionMetrics } from '../infrastructure/event-sourcing/projection-metrics.ts';
import { checkpointNames, orderProjectionName, subscriptionProjectionName } from './projection-names.ts';
import { emptyOutdatedOrderReadModel } from './orders/order-read-model-version.ts';
import { startProjectionRunner } from '../infrastructure/event-sourcing/projection-runner.ts';

export type ProjectionsDeps = { config: ProjectionsConfig; logger: Logger };

/**
 * The projections process of the distributed mode: the order and subscription read models in MongoDB, and
 * the relay of public events to Kafka, each following the log from its own checkpoint. Run one of it: the
 * read models are idempotent, so a second one would do the work twice but harm nothing.
 */
export const startProjections = async ({ config, logger }: ProjectionsDeps) => {
  const mongo = await connectMongo(config.mongo);
  const eventStore = openEventLog(config.eventLog);
  const { db } = mongo;
  const checkpoints = createMongoCheckpointStore(db);
  const orders = await createMongoOrderReadModel(db);
  const subscriptions = await createMongoWebhookSubscriptionReadModel(db);
  const bus = createKafkaEventBus({
    brokers: config.kafka.brokers,
    clientId: config.kafka.clientId,
    partitions: config.kafka.partitions,
    logger,
  });
  const common = { eventStore, checkpoints, logger, minBatchIntervalMs: config.batchIntervalMs };
  await emptyOutdatedOrderReadModel({ readModel: orders, checkpoints, logger });
  const ordersRunner = await startProjectionRunner({
    ...common,
    name: orderProjectionName,
    checkpoint: checkpointNames[orderProjectionName],
    apply: (events) => orders.applyEvents(events),
  });
  const subscriptionsRunner = await startProjectionRunner({
    ...common,
    name: subscriptionProjectionName,
    apply: (events) => subscriptions.applyEvents(events),
  });
  const relay = await startEventRelay({ ...common, bus, topics: config.kafka.topics });
  const runners = [ordersRunner, subscriptionsRunner, relay];

  const projections = {
    [orderProjectionName]: async () => ordersRunner.position(),
    [subscriptionProjectionName]: async () => subscriptionsRunner.position(),
  };
  const metrics = createMetricsRegistry();
  registerProjectionMetrics({
    registry: metrics,
    eventStore,
    projections,
    relay: async () => relay.position(),
  });
  const readiness = createReadiness({
    timeoutMs: config.readiness.checkTimeoutMs,
    checks: {
      eventLog: eventLogCheck(eventStore),
      mongodb: pingCheck(mongo.ping),
      kafka: pingCheck(bus.ping),
      projections: projectionLagCheck({ eventStore, projections, maxLag: config.readiness.maxProjectionLag }),
    },
  });
  const http = await startOperationsServer({
    port: config.port,
    host: config.host,
    logger,
    metrics,
    readiness,
  });
  logger.info({ url: http.url }, 'projections running');
  return {
    url: http.url,
    async stop() {
      await http.close();
      for (const runner of runners) await runner.stop();
      await bus.close();
      await eventStore.close();
      await mongo.close();
      logger.info('projections stopped');
    },
  };
};
