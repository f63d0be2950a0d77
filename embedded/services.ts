import { join } from 'node:path';
import { openSecurity } from '../assembly/security.ts';
import { openSqliteStores } from '../assembly/sqlite-stores.ts';
import { seedDemoCatalogIfEmpty } from '../catalog/demo-catalog.ts';
import { authorize } from '../command-api/authorize.ts';
import { commandModules } from '../command-api/command-modules.ts';
import { announceDemoUsers } from '../command-api/identity/demo-users.ts';
import { withAddressCache } from '../identity/address-cache.ts';
import { startHttpService } from '../infrastructure/http/start-http-service.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { documentSettingsOf, serviceDocsRoutes } from '../openapi/service-document.ts';
import { queryModules } from '../query-api/query-modules.ts';
import { openEmbeddedLog, embeddedReadiness } from './embedded-log.ts';
import { startEmbeddedOrderProjection } from './order-projection.ts';
import type { EmbeddedDeps, RunningService } from './start.ts';
import { startEmbeddedWebhooks } from './webhooks.ts';

/**
 * The embedded default's composition: the event log in `DATA_DIR/events.sqlite`, every other store in
 * `DATA_DIR/read-store.sqlite`, keys it generates in `DATA_DIR/keys`; the projections, the relay and the
 * webhook dispatcher in this process, on an in-process bus; every feature's command and query half.
 */
export const startEmbeddedServices = async (deps: EmbeddedDeps): Promise<RunningService> => {
  const { config, logger, clock } = deps;
  const metrics = createMetricsRegistry();
  const eventStore = openEmbeddedLog(config, metrics);
  const storePath = join(config.dataDir, 'read-store.sqlite');
  const stores = openSqliteStores(storePath, `embedded store in ${config.dataDir}`);
  const users = withAddressCache(await stores.users());
  const catalog = await seedDemoCatalogIfEmpty(await stores.catalog(), config.catalog, clock, logger);
  const keyDir = join(config.dataDir, 'keys');
  const security = await openSecurity({ config, stores, users, keyDir, authorize, clock, logger });
  // What every part of this process is given.
  const shared = { config, eventStore, security, clock, logger };
  const orders = await startEmbeddedOrderProjection({ ...shared, stores });
  const webhooks = await startEmbeddedWebhooks({ ...shared, stores, metrics });
  const service = await startHttpService({
    name: 'embedded service',
    config,
    logger,
    metrics,
    first: serviceDocsRoutes(documentSettingsOf(config)),
    // The query side's modules first: reads are the hot paths, and a GET then walks no command routes
    // (command-api/ serves no GET, query-api/ nothing else, so the order decides nothing else).
    modules: [
      ...queryModules({ ...shared, orders, subscriptions: webhooks.querySide, catalog, users, metrics }),
      ...commandModules({
        ...shared,
        stores: {
          catalog,
          users,
          refreshTokens: await stores.refreshTokens(),
          idempotency: await stores.idempotency(),
          deliveries: webhooks.deliveries,
        },
        checkUrl: webhooks.checkUrl,
        flushDeleted: stores.flushDeleted,
      }),
      security.auth.module,
    ],
    readinessChecks: embeddedReadiness({ config, eventStore, stores, metrics, orders, webhooks }),
    afterListen: announceDemoUsers({ seed: config.seedDemoUsers, users, clock, announce: deps.announce }),
  });
  return {
    url: service.url,
    handler: service.handler,
    async stop() {
      await service.stop();
      await webhooks.stop();
      await orders.progress.stop();
      await eventStore.close();
      await stores.close();
      logger.info('embedded service stopped');
    },
  };
};
