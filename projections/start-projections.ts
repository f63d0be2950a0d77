import type { Logger } from 'pino';
import { openServerStores } from '../assembly/server-stores.ts';
import { pingCheck } from '../infrastructure/operations/readiness.ts';
import { createKafkaEventBus } from '../infrastructure/bus/kafka-event-bus.ts';
import { startOperationsServer } from '../infrastructure/http/operations-server.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import type { ProjectionsConfig } from './config.ts';
import { eventRelayMember, eventRelayName } from './relay/event-relay.ts';
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
  const server = await openServerStores(config, 'projections');
  const { stores, eventStore } = server;
  const checkpoints = stores.checkpoints();
  const orders = await stores.orders();
  const bus = createKafkaEventBus({ ...config.kafka, logger });
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
      subscriptionsProjection(await stores.subscriptions()),
      eventRelayMember({ eventStore, bus, topics: config.kafka.topics }),
    ],
  });
  const positionOf = (name: string) => async () => group.progress[name]!.position();
  const projections = {
    [orderProjectionName]: positionOf(orderProjectionName),
    [subscriptionProjectionName]: positionOf(subscriptionProjectionName),
  };
  const metrics = createMetricsRegistry();
  registerProjectionMetrics({
    registry: metrics,
    eventStore,
    projections,
    relay: positionOf(eventRelayName),
  });
  const http = await startOperationsServer({
    config,
    logger,
    metrics,
    checks: {
      ...server.readiness,
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
      await server.close();
      logger.info('projections stopped');
    },
  };
};
