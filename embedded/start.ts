import { randomUUIDv7 } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createCatalogRepresentations } from '../catalog/catalog-representations.ts';
import { catalogRoutes } from '../catalog/catalog-routes.ts';
import { purgeTimings, startCachePurger } from '../catalog/cache-purger.ts';
import { createPurgeMetrics } from '../catalog/purge-metrics.ts';
import { httpPurgeSender } from '../catalog/send-purge.ts';
import { seedDemoCatalog } from '../catalog/demo-catalog.ts';
import { createSqliteCatalogStore } from '../catalog/sqlite-catalog-store.ts';
import { orderCommandRoutes } from '../command-api/orders/order-command-routes.ts';
import { orderErrors } from '../command-api/orders/order-errors.ts';
import { webhookErrors } from '../command-api/webhook-subscriptions/subscription-errors.ts';
import { createSqliteIdempotencyStore } from '../command-api/idempotency/sqlite-idempotency-store.ts';
import { formatDemoCredentials, seedDemoUsers } from '../identity/demo-users.ts';
import { createIdentityModule, resolveSigningKey } from '../identity/identity-module.ts';
import { createSqliteRefreshTokenStore } from '../identity/sqlite-refresh-token-store.ts';
import { createSqliteUserStore } from '../identity/sqlite-user-store.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { countingAppends } from '../infrastructure/event-store/counting-appends.ts';
import { createSqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.ts';
import { createHttpApp } from '../infrastructure/http/create-app.ts';
import { healthRoutes } from '../infrastructure/http/health-routes.ts';
import { listen } from '../infrastructure/http/listen.ts';
import { startLoadShedding } from '../infrastructure/http/load-shedding.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { createReadiness } from '../infrastructure/operations/readiness.ts';
import { dataDirCheck, eventLogCheck, sqliteCheck } from '../infrastructure/operations/store-checks.ts';
import { openDatabase } from '../infrastructure/sqlite/open-database.ts';
import { listenStartupError } from '../infrastructure/process/listen-error.ts';
import { checkDataDirWritable, dataDirError, ownerOnlyDataDir } from '../infrastructure/storage/data-dir.ts';
import { projectionLagCheck } from '../infrastructure/event-sourcing/projection-lag.ts';
import { registerProjectionMetrics } from '../infrastructure/event-sourcing/projection-metrics.ts';
import { startProjectionRunner } from '../infrastructure/event-sourcing/projection-runner.ts';
import { createSqliteCheckpointStore } from '../infrastructure/event-sourcing/sqlite-checkpoint-store.ts';
import { createSqliteOrderReadModel } from '../projections/orders/sqlite-order-read-model.ts';
import { auditRoutes } from '../query-api/audit/audit-routes.ts';
import { orderQueryRoutes } from '../query-api/orders/order-query-routes.ts';
import { consoleRoutes } from '../query-api/console/console-routes.ts';
import type { EmbeddedConfig } from './config.ts';
import { startEmbeddedWebhooks } from './webhooks.ts';
import { orderProjectionName, subscriptionProjectionName } from '../projections/projection-names.ts';
import { serviceDocsRoutes } from '../openapi/service-document.ts';

export type EmbeddedDeps = {
  config: EmbeddedConfig;
  logger: Logger;
  clock: Clock;
  /** Where one-time notices for the operator go (the demo credentials): stderr, never the log. */
  announce: (text: string) => void;
};

export type RunningService = { url: string; stop: () => Promise<void> };

/**
 * The embedded default: every service of the project in this one process, on one port. The event log is
 * `DATA_DIR/events.sqlite`; users, tokens, the catalogue, idempotency keys, the read models and
 * their checkpoints, and the webhook retry state are `DATA_DIR/read-store.sqlite`. The projections, the
 * relay and the webhook dispatcher run in this process too, on an in-process bus.
 *
 * A DATA_DIR it cannot write (read-only, full, forbidden) stops the start with a StartupError naming it
 * and the cause, before anything is opened there, or when a store fails so while starting. So does a port
 * it cannot listen on (taken, privileged), before the demo users are made: their passwords, shown once, are
 * never shown by a start that then fails.
 */
export const startEmbedded = async (deps: EmbeddedDeps): Promise<RunningService> => {
  checkDataDirWritable(deps.config.dataDir);
  const tightened = ownerOnlyDataDir(deps.config.dataDir);
  if (tightened) deps.logger.warn(tightened);
  try {
    return await startServices(deps);
  } catch (error) {
    throw listenStartupError(error) ?? dataDirError(deps.config.dataDir, error) ?? error;
  }
};

const startServices = async ({ config, logger, clock, announce }: EmbeddedDeps): Promise<RunningService> => {
  const metrics = createMetricsRegistry();
  const eventStore = countingAppends(
    createSqliteEventStore({
      path: join(config.dataDir, 'events.sqlite'),
      durability: config.eventLogDurability,
    }),
    metrics,
  );
  const readStore = openDatabase({ path: join(config.dataDir, 'read-store.sqlite') });
  const users = createSqliteUserStore(readStore);
  const refreshTokens = createSqliteRefreshTokenStore(readStore);

  const catalog = createSqliteCatalogStore(readStore);
  if (config.catalog.seedDemo && (await seedDemoCatalog(catalog, config.catalog.currency))) {
    logger.info('imported the demo catalogue into the empty catalogue');
  }
  const catalogRouter = catalogRoutes({
    store: catalog,
    representations: createCatalogRepresentations({ store: catalog, ...config.catalog }),
  });

  const identity = createIdentityModule({
    users,
    refreshTokens,
    signingKey: resolveSigningKey(config.identity, join(config.dataDir, 'keys', 'jwt-signing-key.pem')),
    config: config.identity,
    clock,
  });

  const readModel = createSqliteOrderReadModel(readStore);
  const projection = await startProjectionRunner({
    name: orderProjectionName,
    eventStore,
    checkpoints: createSqliteCheckpointStore(readStore),
    apply: (events) => readModel.applyEvents(events),
    logger,
    minBatchIntervalMs: config.projectionBatchIntervalMs,
  });
  const webhooks = await startEmbeddedWebhooks({ config, eventStore, readStore, logger, clock, metrics });
  const projections = {
    [orderProjectionName]: async () => projection.position(),
    [subscriptionProjectionName]: webhooks.positions.subscriptions,
  };
  registerProjectionMetrics({ registry: metrics, eventStore, projections, relay: webhooks.positions.relay });
  const readiness = createReadiness({
    timeoutMs: config.readiness.checkTimeoutMs,
    checks: {
      eventLog: eventLogCheck(eventStore),
      readStore: sqliteCheck(readStore),
      dataDir: dataDirCheck(config.dataDir),
      projections: projectionLagCheck({
        eventStore,
        projections,
        maxLag: config.readiness.maxProjectionLag,
      }),
    },
  });
  // The caches in front hear of each import once, from here (the only process serving it).
  const cachePurger = startCachePurger({
    outbox: catalog.purges,
    urls: config.catalog.purgeUrls,
    send: httpPurgeSender(),
    now: () => clock.now().getTime(),
    logger,
    metrics: createPurgeMetrics(metrics),
    ...purgeTimings(config.catalog.refreshIntervalMs),
  });
  const idempotency = createSqliteIdempotencyStore(readStore);
  const purgeIdempotencyKeys = setInterval(() => {
    idempotency.purgeExpired(clock.now()).catch((error: unknown) => {
      logger.error({ err: error }, 'could not purge expired idempotency keys');
    });
  }, 3_600_000).unref();

  // Past its bounds the process answers 503 overloaded at once: latency and memory stay bounded under overload.
  const loadShedding = startLoadShedding({
    config: config.http,
    errorTypeBase: config.errorTypeBase,
    metrics,
  });
  const app = createHttpApp({
    problems: { errorTypeBase: config.errorTypeBase, realm: config.identity.realm },
    logger,
    trustProxy: config.identity.trustProxy,
    routers: [
      // First: OPTIONS and 405 for every documented path, before any router answers them its own way;
      // then the catalogue, which carries the hottest, public traffic.
      serviceDocsRoutes({
        baseUrl: config.publicBaseUrl,
        docsUrl: config.docsUrl,
        errorTypeBase: config.errorTypeBase,
        realm: config.identity.realm,
      }),
      catalogRouter,
      healthRoutes(),
      ...identity.routers,
      orderCommandRoutes({
        eventStore,
        authenticator: identity.authenticator,
        catalog,
        users,
        idempotency,
        currency: config.catalog.currency,
        clock,
        newId: randomUUIDv7,
        logger,
      }),
      orderQueryRoutes({
        readModel,
        eventStore,
        progress: projection,
        authenticator: identity.authenticator,
        consistencyTimeoutMs: config.consistencyTimeoutMs,
      }),
      auditRoutes({ eventStore, authenticator: identity.authenticator }),
      ...webhooks.routers(identity.authenticator),
      // The operator console at /console: a page of this origin that uses the API above, as any client.
      consoleRoutes(),
    ],
    errorMappers: [...identity.errorMappers, orderErrors, webhookErrors],
    loadShedding: loadShedding.middleware,
    bodyTimeoutMs: config.http.bodyTimeoutMs,
    metrics,
    readiness,
  });

  const http = await listen(app, config.port, config.host, {
    ...config.http,
    errorTypeBase: config.errorTypeBase,
  });
  // Only once the port is ours: a start that fails on a taken port must not make (and lose) demo passwords.
  if (config.seedDemoUsers) {
    const credentials = await seedDemoUsers(users, clock);
    if (credentials.length > 0) announce(formatDemoCredentials(credentials));
  }
  logger.info({ url: http.url, dataDir: config.dataDir }, 'embedded service listening');

  return {
    url: http.url,
    async stop() {
      clearInterval(purgeIdempotencyKeys);
      await http.close();
      loadShedding.stop();
      await cachePurger.stop();
      await webhooks.stop();
      await projection.stop();
      await eventStore.close();
      readStore.close();
      logger.info('embedded service stopped');
    },
  };
};
