import { createSecretCipher, resolveSecretKey } from '../infrastructure/crypto/secret-cipher.ts';
import type { Logger } from 'pino';
import { queryModules } from './query-modules.ts';
import { resolveConsistencyTokenKey } from '../infrastructure/config/consistency-token-environment.ts';
import { createConsistencyTokens } from '../infrastructure/http/consistency-tokens.ts';
import { mongoUnavailable } from '../infrastructure/mongo/mongo-errors.ts';
import { startHttpService } from '../infrastructure/http/start-http-service.ts';
import { createMongoCatalogStore } from '../projections/catalog/mongo-catalog-store.ts';
import { roles, staffRoles } from '../domain/identity/roles.ts';
import { createAuthModule, resolveSigningKey } from '../infrastructure/auth/auth-module.ts';
import { authorize } from './authorize.ts';
import { createMongoRefreshTokenStore } from '../infrastructure/auth/mongo-refresh-token-store.ts';
import { createMongoUserStore } from '../projections/identity/mongo-user-store.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { openEventLog } from '../infrastructure/event-store/open-event-log.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';
import { pingCheck } from '../infrastructure/operations/readiness.ts';
import { eventLogCheck } from '../infrastructure/operations/store-checks.ts';
import { createCheckpointProgress } from '../infrastructure/event-sourcing/checkpoint-progress.ts';
import { openKeyring } from '../infrastructure/personal-data/open-keyring.ts';
import { createMongoDataKeyStore } from '../infrastructure/personal-data/mongo-data-key-store.ts';
import { createMongoCheckpointStore } from '../infrastructure/event-sourcing/mongo-checkpoint-store.ts';
import { createMongoOrderReadModel } from '../projections/orders/mongo-order-read-model.ts';
import { createMongoWebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/mongo-subscription-read-model.ts';
import { projectionLagCheck } from '../infrastructure/event-sourcing/projection-lag.ts';
import { registerProjectionMetrics } from '../infrastructure/event-sourcing/projection-metrics.ts';
import {
  checkpointNames,
  orderProjectionName,
  subscriptionProjectionName,
} from '../projections/projection-names.ts';
import { createMongoDeliveryLog } from '../projections/webhook-deliveries/mongo-delivery-log.ts';
import type { QueryApiConfig } from './config.ts';
import { documentSettingsOf, serviceDocsRoutes } from '../openapi/service-document.ts';

export type QueryApiDeps = { config: QueryApiConfig; logger: Logger; clock: Clock };

/**
 * The query API of the distributed mode: answers every read of the HTTP API (GET, HEAD) from the MongoDB
 * read models the projections process builds, and from the log for histories and audit. A query with a
 * Consistency-Token waits on the projections' checkpoints, which it reads from MongoDB while it waits.
 */
export const startQueryApi = async ({ config, logger, clock }: QueryApiDeps) => {
  const consistencyTokens = createConsistencyTokens(
    resolveConsistencyTokenKey(config.consistencyTokens, null),
  );
  const mongo = await connectMongo(config.mongo);
  const eventStore = await openEventLog(config.eventLog, 'query-api');
  const { db } = mongo;
  const catalog = await createMongoCatalogStore(db);
  const keyring = openKeyring({
    store: createMongoDataKeyStore(db),
    config: config.personalData,
    generatedKeyPath: null,
    logger,
  });
  const users = await createMongoUserStore(db);
  const auth = createAuthModule({
    accounts: users,
    refreshTokens: await createMongoRefreshTokenStore(db),
    signingKey: resolveSigningKey(config.auth, null),
    roles,
    staffRoles,
    authorize,
    config: config.auth,
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
  const ordersProgress = progressOf(checkpointNames[orderProjectionName]);
  const subscriptionsProgress = progressOf(checkpointNames[subscriptionProjectionName]);
  // The projections run in their own process: where they are is their stored checkpoint.
  const checkpointOf = (projection: string) => async () => (await checkpoints.load(projection)) ?? null;
  const projections = {
    [orderProjectionName]: checkpointOf(checkpointNames[orderProjectionName]),
    [subscriptionProjectionName]: checkpointOf(checkpointNames[subscriptionProjectionName]),
  };
  const metrics = createMetricsRegistry();
  registerProjectionMetrics({ registry: metrics, eventStore, projections });
  const service = await startHttpService({
    name: 'query API',
    config,
    logger,
    metrics,
    // The relay's lag and the delivery counts are the projections' and the dispatcher's: the console reads
    // them here, as GET /metrics?process={name}.
    peerMetrics: config.console.processes,
    first: serviceDocsRoutes(documentSettingsOf(config)),
    modules: [
      ...queryModules({
        eventStore,
        authenticator: auth.authenticator,
        reveal: keyring.reveal,
        consistencyTokens,
        webhookCipher: createSecretCipher(resolveSecretKey(config.webhooks, null)),
        orders: { readModel: await createMongoOrderReadModel(db), progress: ordersProgress },
        subscriptions: {
          readModel: await createMongoWebhookSubscriptionReadModel(db),
          deliveryLog: await createMongoDeliveryLog(db),
          progress: subscriptionsProgress,
        },
        catalog,
        users,
        config: {
          ...config,
          commandApiUrl: config.console.commandApiUrl,
          consoleProcesses: Object.keys(config.console.processes),
        },
        clock,
        logger,
        metrics,
      }),
      auth.module,
    ],
    storeErrors: [mongoUnavailable],
    readinessChecks: {
      eventLog: eventLogCheck(eventStore),
      mongodb: pingCheck(mongo.ping),
      projections: projectionLagCheck({ eventStore, projections, maxLag: config.readiness.maxProjectionLag }),
    },
  });
  return {
    url: service.url,
    async stop() {
      await service.stop();
      ordersProgress.stop();
      subscriptionsProgress.stop();
      await eventStore.close();
      await mongo.close();
      logger.info('query API stopped');
    },
  };
};
