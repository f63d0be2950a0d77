import type { Logger } from 'pino';
import { openSecurity } from '../assembly/security.ts';
import { openServerStores } from '../assembly/server-stores.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { projectionLagCheck } from '../infrastructure/event-sourcing/projection-lag.ts';
import { registerProjectionMetrics } from '../infrastructure/event-sourcing/projection-metrics.ts';
import { startHttpService } from '../infrastructure/http/start-http-service.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { documentSettingsOf, serviceDocsRoutes } from '../openapi/service-document.ts';
import { authorize } from './authorize.ts';
import type { QueryApiConfig } from './config.ts';
import { queryModules } from './query-modules.ts';
import { storedProjectionProgress } from './stored-projection-progress.ts';

export type QueryApiDeps = { config: QueryApiConfig; logger: Logger; clock: Clock };

/**
 * The query API of the distributed mode: answers every read of the HTTP API (GET, HEAD) from the MongoDB
 * read models the projections process builds, and from the log for histories and audit. A query with a
 * Consistency-Token waits on the projections' checkpoints, which it reads from MongoDB while it waits.
 */
export const startQueryApi = async ({ config, logger, clock }: QueryApiDeps) => {
  const server = await openServerStores(config, 'query-api');
  const { stores, eventStore } = server;
  const users = await stores.users();
  const security = await openSecurity({ config, stores, users, keyDir: null, authorize, clock, logger });
  const progress = storedProjectionProgress({
    checkpoints: stores.checkpoints(),
    pollIntervalMs: config.consistencyPollIntervalMs,
    logger,
  });
  const metrics = createMetricsRegistry();
  registerProjectionMetrics({ registry: metrics, eventStore, projections: progress.positions });
  const service = await startHttpService({
    name: 'query API',
    config,
    logger,
    metrics,
    // The projections' and the dispatcher's metrics, which the console reads as GET /metrics?process={name}.
    peerMetrics: config.console.processes,
    first: serviceDocsRoutes(documentSettingsOf(config)),
    modules: [
      ...queryModules({
        eventStore,
        security,
        orders: { readModel: await stores.orders(), progress: progress.orders },
        subscriptions: {
          readModel: await stores.subscriptions(),
          deliveryLog: await stores.deliveryLog(),
          deliveryQueue: await stores.deliveryQueue(),
          progress: progress.subscriptions,
        },
        catalog: await stores.catalog(),
        users,
        config,
        clock,
        logger,
        metrics,
      }),
      security.auth.module,
    ],
    readinessChecks: {
      ...server.readiness,
      projections: projectionLagCheck({
        eventStore,
        projections: progress.positions,
        maxLag: config.readiness.maxProjectionLag,
      }),
    },
  });
  return {
    url: service.url,
    async stop() {
      await service.stop();
      progress.stop();
      await server.close();
      logger.info('query API stopped');
    },
  };
};
