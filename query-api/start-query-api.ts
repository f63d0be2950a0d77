import type { Logger } from 'pino';
import { createCatalogRepresentations } from '../catalog/catalog-representations.ts';
import { catalogRoutes } from '../catalog/catalog-routes.ts';
import { purgeTimings, startCachePurger } from '../catalog/cache-purger.ts';
import { createPurgeMetrics } from '../catalog/purge-metrics.ts';
import { httpPurgeSender } from '../catalog/send-purge.ts';
import { createMongoCatalogStore } from '../catalog/mongo-catalog-store.ts';
import { createIdentityModule, resolveSigningKey } from '../identity/identity-module.ts';
import { createMongoRefreshTokenStore } from '../identity/mongo-refresh-token-store.ts';
import { createMongoUserStore } from '../identity/mongo-user-store.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { openEventLog } from '../infrastructure/event-store/open-event-log.ts';
import { createHttpApp } from '../infrastructure/http/create-app.ts';
import { healthRoutes } from '../infrastructure/http/health-routes.ts';
import { listen } from '../infrastructure/http/listen.ts';
import { startLoadShedding } from '../infrastructure/http/load-shedding.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';
import { createReadiness, pingCheck } from '../infrastructure/operations/readiness.ts';
import { eventLogCheck } from '../infrastructure/operations/store-checks.ts';
import { createCheckpointProgress } from '../infrastructure/event-sourcing/checkpoint-progress.ts';
import { createMongoCheckpointStore } from '../infrastructure/event-sourcing/mongo-checkpoint-store.ts';
import { createMongoOrderReadModel } from '../projections/orders/mongo-order-read-model.ts';
import { createMongoWebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/mongo-subscription-read-model.ts';
import { projectionLagCheck } from '../infrastructure/event-sourcing/projection-lag.ts';
import { registerProjectionMetrics } from '../infrastructure/event-sourcing/projection-metrics.ts';
import { orderProjectionName, subscriptionProjectionName } from '../projections/projection-names.ts';
import { createMongoDeliveryLog } from '../projections/webhook-deliveries/mongo-delivery-log.ts';
import { auditRoutes } from './audit/audit-routes.ts';
import { consoleRoutes } from './console/console-routes.ts';
import type { QueryApiConfig } from './config.ts';
import { orderQueryRoutes } from './orders/order-query-routes.ts';
import { webhookQueryRoutes } from './webhook-subscriptions/subscription-query-routes.ts';
import { serviceDocsRoutes } from '../openapi/service-document.ts';

export type QueryApiDeps = { config: QueryApiConfig; logger: Logger; clock: Clock };

/**
 * The query API of the distributed mode: answers every read of the HTTP API (GET, HEAD) from the MongoDB
 * read models the projections process builds, and from the log for histories and audit. A query with a
 * Consistency-Token waits on the projections' checkpoints, which it reads from MongoDB while it waits.
 */
export const startQueryApi = async ({ config, logger, clock }: QueryApiDeps) => {
  const mongo = await connectMongo(config.mongo);
  const eventStore = openEventLog(config.eventLog);
  const { db } = mongo;
  const catalog = await createMongoCatalogStore(db);
  const identity = createIdentityModule({
    users: await createMongoUserStore(db),
    refreshTokens: await createMongoRefreshTokenStore(db),
    signingKey: resolveSigningKey(config.identity, null),
    config: config.identity,
    clock,
  });
  const checkpoints = createMongoCheckpointStore(db);
  const progressOf = (projection: string) =>
    createCheckpointProgress({
      checkpoints,
      projection,
      pollIntervalMs: config.consistencyPollIntervalMs,
      onError: (error) => logger.warn({ err: error, projection }, 'could not read a projection checkpoint'),
    });
  const ordersProgress = progressOf(orderProjectionName);
  const subscriptionsProgress = progressOf(subscriptionProjectionName);
  // The projections run in their own process: where they are is their stored checkpoint.
  const checkpointOf = (projection: string) => async () => (await checkpoints.load(projection)) ?? null;
  const projections = {
    [orderProjectionName]: checkpointOf(orderProjectionName),
    [subscriptionProjectionName]: checkpointOf(subscriptionProjectionName),
  };
  const metrics = createMetricsRegistry();
  registerProjectionMetrics({ registry: metrics, eventStore, projections });
  // Every query API runs one; each purge is claimed, so sent once in all.
  const cachePurger = startCachePurger({
    outbox: catalog.purges,
    urls: config.catalog.purgeUrls,
    send: httpPurgeSender(),
    now: () => clock.now().getTime(),
    logger,
    metrics: createPurgeMetrics(metrics),
    ...purgeTimings(config.catalog.refreshIntervalMs),
  });
  const readiness = createReadiness({
    timeoutMs: config.readiness.checkTimeoutMs,
    checks: {
      eventLog: eventLogCheck(eventStore),
      mongodb: pingCheck(mongo.ping),
      projections: projectionLagCheck({
        eventStore,
        projections,
        maxLag: config.readiness.maxProjectionLag,
      }),
    },
  });

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
      // First: OPTIONS and 405 for every documented path, before any router answers them its own way.
      serviceDocsRoutes({
        baseUrl: config.publicBaseUrl,
        docsUrl: config.docsUrl,
        errorTypeBase: config.errorTypeBase,
        realm: config.identity.realm,
      }),
      catalogRoutes({
        store: catalog,
        representations: createCatalogRepresentations({ store: catalog, ...config.catalog }),
      }),
      healthRoutes(),
      ...identity.routers,
      orderQueryRoutes({
        readModel: await createMongoOrderReadModel(db),
        eventStore,
        progress: ordersProgress,
        authenticator: identity.authenticator,
        consistencyTimeoutMs: config.consistencyTimeoutMs,
      }),
      auditRoutes({ eventStore, authenticator: identity.authenticator }),
      webhookQueryRoutes({
        subscriptions: await createMongoWebhookSubscriptionReadModel(db),
        deliveryLog: await createMongoDeliveryLog(db),
        progress: subscriptionsProgress,
        headPosition: () => eventStore.headPosition(),
        authenticator: identity.authenticator,
        consistencyTimeoutMs: config.consistencyTimeoutMs,
      }),
      // The operator console at /console; its commands go to the command API's public HTTP API.
      consoleRoutes({ commandApiUrl: config.console.commandApiUrl }),
    ],
    errorMappers: identity.errorMappers,
    loadShedding: loadShedding.middleware,
    bodyTimeoutMs: config.http.bodyTimeoutMs,
    metrics,
    readiness,
  });

  const http = await listen(app, config.port, config.host, {
    ...config.http,
    errorTypeBase: config.errorTypeBase,
  });
  logger.info({ url: http.url }, 'query API listening');
  return {
    url: http.url,
    async stop() {
      await http.close();
      loadShedding.stop();
      await cachePurger.stop();
      ordersProgress.stop();
      subscriptionsProgress.stop();
      await eventStore.close();
      await mongo.close();
      logger.info('query API stopped');
    },
  };
};
