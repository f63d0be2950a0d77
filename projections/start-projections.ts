import type { Logger } from 'pino';
import { createKafkaEventBus } from '../infrastructure/bus/kafka-event-bus.ts';
import { openEventLog } from '../infrastructure/event-store/open-event-log.ts';
import { startOperationsServer } from '../infrastructure/http/operations-server.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';
import { pingCheck } from '../infrastructure/operations/readiness.ts';
import { eventLogCheck } from '../infrastructure/operations/store-checks.ts';
import type { ProjectionsConfig } from './config.ts';
import { eventRelayMember, eventRelayName } from './relay/event-relay.ts';
import { createMongoCheckpointStore } from '../infrastructure/event-sourcing/mongo-checkpoint-store.ts';
import { createMongoOrderReadModel } from './orders/mongo-order-read-model.ts';
import { createMongoWebhookSubscriptionReadModel } from './webhook-subscriptions/mongo-subscription-read-model.ts';
import { projectionLagCheck } from '../infrastructure/event-sourcing/projection-lag.ts';
import { registerProjectionMetrics } from '../infrastructure/event-sourcing/projection-metrics.ts';
import { orderProjectionName, subscriptionProjectionName } from './projection-names.ts';
import { ordersProjection } from './orders/orders-projection.ts';
import { subscriptionsProjection } from './webhook-subscriptions/subscriptions-projection.ts';
import { emptyOutdatedOrderReadModel } from './orders/order-read-model-version.ts';
import { startProjectionGroup } from '../infrastructure/event-sourcing/projection-group.ts';

export type ProjectionsDeps = { config: ProjectionsConfig; logger: Logger };

/**
 * The projections process of the distributed mode: the order and subscription read models in MongoDB, and
 * the relay of public events to Kafka, following the log as one group (one read of the log, one checkpoint
 * write per batch for all three; each keeps its own position in it). Run one of it: the read models are
 * idempotent, so a second one would do the work twice but harm nothing.
 */
export const startProjections = async ({ config, logger }: ProjectionsDeps) => {
  const mongo = await connectMongo(config.mongo);
  const eventStore = await openEventLog(config.eventLog, 'projections');
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
  await emptyOutdatedOrderReadModel({ readModel: orders, checkpoints, logger });
  // One reader of the log for the read models and the relay, and one checkpoint write per batch for all.
  const group = await startProjectionGroup({
    name: 'projections',
    eventStore,
    checkpoints,
    logger,
    minBatchIntervalMs: config.batchIntervalMs,
    members: [
      ordersProjection(orders),
      subscriptionsProjection(subscriptions),
      eventRelayMember({ eventStore, bus, topics: config.kafka.topics }),
    ],
  });
  const progressOf = (name: string) => group.progress[name]!;

  const projections = {
    [orderProjectionName]: async () => progressOf(orderProjectionName).position(),
    [subscriptionProjectionName]: async () => progressOf(subscriptionProjectionName).position(),
  };
  const metrics = createMetricsRegistry();
  registerProjectionMetrics({
    registry: metrics,
    eventStore,
    projections,
    relay: async () => progressOf(eventRelayName).position(),
  });
  const http = await startOperationsServer({
    config,
    logger,
    metrics,
    checks: {
      eventLog: eventLogCheck(eventStore),
      mongodb: pingCheck(mongo.ping),
      kafka: pingCheck(bus.ping),
      projections: projectionLagCheck({ eventStore, projections, maxLag: config.readiness.maxProjectionLag }),
    },
  });
  logger.info({ url: http.url }, 'projections running');
  return {
    url: http.url,
    async stop() {
      await http.close();
      await group.stop();
      await bus.close();
      await eventStore.close();
      await mongo.close();
      logger.info('projections stopped');
    },
  };
};
