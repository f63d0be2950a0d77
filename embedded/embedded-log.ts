import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { ReadStores } from '../assembly/read-stores.ts';
import { projectionLagCheck } from '../infrastructure/event-sourcing/projection-lag.ts';
import { registerProjectionMetrics } from '../infrastructure/event-sourcing/projection-metrics.ts';
import type { ProjectionProgress } from '../infrastructure/event-sourcing/projection-progress.ts';
import { countingAppends } from '../infrastructure/event-store/counting-appends.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.ts';
import { dataDirCheck, eventLogCheck } from '../infrastructure/operations/store-checks.ts';
import { orderProjectionName, subscriptionProjectionName } from '../projections/projection-names.ts';
import type { EmbeddedConfig } from './config.ts';

/** The embedded default's event log: `DATA_DIR/events.sqlite`, its appends counted on the metrics. */
export const openEmbeddedLog = (config: EmbeddedConfig, metrics: Registry): EventStore =>
  countingAppends(
    createSqliteEventStore({
      path: join(config.dataDir, 'events.sqlite'),
      durability: config.eventLogDurability,
    }),
    metrics,
  );

/**
 * How the embedded process reports on itself: where its projections and relay are in the log (on the
 * metrics), and what GET /ready checks (the log, the read store, DATA_DIR taking writes, the projections'
 * lag).
 */
export const embeddedReadiness = ({
  config,
  eventStore,
  stores,
  metrics,
  orders,
  webhooks,
}: {
  config: EmbeddedConfig;
  eventStore: EventStore;
  stores: Pick<ReadStores, 'readiness'>;
  metrics: Registry;
  orders: { progress: ProjectionProgress };
  webhooks: {
    positions: { subscriptions: () => Promise<bigint | null>; relay: () => Promise<bigint | null> };
  };
}) => {
  const projections = {
    [orderProjectionName]: async () => orders.progress.position(),
    [subscriptionProjectionName]: webhooks.positions.subscriptions,
  };
  registerProjectionMetrics({ registry: metrics, eventStore, projections, relay: webhooks.positions.relay });
  return {
    eventLog: eventLogCheck(eventStore),
    readStore: stores.readiness,
    dataDir: dataDirCheck(config.dataDir),
    projections: projectionLagCheck({ eventStore, projections, maxLag: config.readiness.maxProjectionLag }),
  };
};
