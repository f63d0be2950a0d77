import { join } from 'node:path';
import type { Logger } from 'pino';
import { commandModules } from '../command-api/command-modules.ts';
import { queryModules } from '../query-api/query-modules.ts';
import { checkPortAvailable } from '../infrastructure/http/listen.ts';
import { startHttpService } from '../infrastructure/http/start-http-service.ts';
import { seedDemoCatalog } from '../catalog/demo-catalog.ts';
import { createSqliteCatalogStore } from '../catalog/sqlite-catalog-store.ts';
import { createSqliteIdempotencyStore } from '../command-api/idempotency/sqlite-idempotency-store.ts';
import { formatDemoCredentials, seedDemoUsers } from '../command-api/identity/demo-users.ts';
import { roles, staffRoles } from '../domain/identity/roles.ts';
import { createAuthModule, resolveSigningKey } from '../infrastructure/auth/auth-module.ts';
import { authorize } from '../command-api/authorize.ts';
import { createSqliteRefreshTokenStore } from '../infrastructure/auth/sqlite-refresh-token-store.ts';
import { withAddressCache } from '../identity/address-cache.ts';
import { createSqliteUserStore } from '../identity/sqlite-user-store.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { countingAppends } from '../infrastructure/event-store/counting-appends.ts';
import { createSqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { dataDirCheck, eventLogCheck, sqliteCheck } from '../infrastructure/operations/store-checks.ts';
import { openDatabase } from '../infrastructure/sqlite/open-database.ts';
import { listenStartupError } from '../infrastructure/process/listen-error.ts';
import { checkDataDirWritable, dataDirError, ownerOnlyDataDir } from '../infrastructure/storage/data-dir.ts';
import { projectionLagCheck } from '../infrastructure/event-sourcing/projection-lag.ts';
import { registerProjectionMetrics } from '../infrastructure/event-sourcing/projection-metrics.ts';
import { startProjectionRunner } from '../infrastructure/event-sourcing/projection-runner.ts';
import { createSqliteCheckpointStore } from '../infrastructure/event-sourcing/sqlite-checkpoint-store.ts';
import { createSqliteOrderReadModel } from '../projections/orders/sqlite-order-read-model.ts';
import { resolvePersonalDataKeys } from '../infrastructure/config/personal-data-environment.ts';
import { resolveConsistencyTokenKey } from '../infrastructure/config/consistency-token-environment.ts';
import { createConsistencyTokens } from '../infrastructure/http/consistency-tokens.ts';
import { createPersonalDataKeyring } from '../infrastructure/personal-data/keyring.ts';
import { createSqliteDataKeyStore } from '../infrastructure/personal-data/sqlite-data-key-store.ts';
import type { EmbeddedConfig } from './config.ts';
import { startEmbeddedWebhooks } from './webhooks.ts';
import { orderProjectionName, subscriptionProjectionName } from '../projections/projection-names.ts';
import { ordersProjection } from '../projections/orders/orders-projection.ts';
import { emptyOutdatedOrderReadModel } from '../projections/orders/order-read-model-version.ts';
import { documentSettingsOf, serviceDocsRoutes } from '../openapi/service-document.ts';

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
 * it cannot listen on (taken, privileged), found out first: a start that fails so makes nothing, neither the
 * stores nor the demo catalogue nor the demo users (whose passwords, shown once, would be lost). The demo
 * users are made only once the port is really bound, too.
 */
export const startEmbedded = async (deps: EmbeddedDeps): Promise<RunningService> => {
  // A port it cannot listen on stops the start before DATA_DIR is touched: nothing seeded, nothing made.
  await checkPortAvailable(deps.config.port, deps.config.host).catch((error: unknown) => {
    throw listenStartupError(error) ?? error;
  });
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
  const users = withAddressCache(createSqliteUserStore(readStore));
  const personalDataKeys = resolvePersonalDataKeys(
    config.personalData,
    join(config.dataDir, 'keys', 'personal-data-key'),
  );
  const keyring = createPersonalDataKeyring({
    store: createSqliteDataKeyStore(readStore),
    keyEncryptionKey: personalDataKeys.current,
    previousKeyEncryptionKeys: personalDataKeys.previous,
    logger,
  });
  const refreshTokens = createSqliteRefreshTokenStore(readStore);
  const consistencyTokens = createConsistencyTokens(
    resolveConsistencyTokenKey(
      config.consistencyTokens,
      join(config.dataDir, 'keys', 'consistency-token-key'),
    ),
  );

  const catalog = createSqliteCatalogStore(readStore);
  if (config.catalog.seedDemo && (await seedDemoCatalog(catalog, config.catalog.currency, clock.now()))) {
    logger.info('imported the demo catalogue into the empty catalogue');
  }

  const auth = createAuthModule({
    accounts: users,
    refreshTokens,
    signingKey: resolveSigningKey(config.auth, join(config.dataDir, 'keys', 'jwt-signing-key.pem')),
    roles,
    staffRoles,
    authorize,
    config: config.auth,
    clock,
  });

  const readModel = createSqliteOrderReadModel(readStore);
  const checkpoints = createSqliteCheckpointStore(readStore);
  await emptyOutdatedOrderReadModel({ readModel, checkpoints, logger });
  const projection = await startProjectionRunner({
    ...ordersProjection(readModel),
    eventStore,
    checkpoints,
    logger,
    minBatchIntervalMs: config.projectionBatchIntervalMs,
  });
  const webhooks = await startEmbeddedWebhooks({
    config,
    eventStore,
    readStore,
    logger,
    clock,
    metrics,
    reveal: keyring.reveal,
  });
  const projections = {
    [orderProjectionName]: async () => projection.position(),
    [subscriptionProjectionName]: webhooks.positions.subscriptions,
  };
  registerProjectionMetrics({ registry: metrics, eventStore, projections, relay: webhooks.positions.relay });
  const service = await startHttpService({
    name: 'embedded service',
    config,
    logger,
    metrics,
    first: serviceDocsRoutes(documentSettingsOf(config)),
    modules: [
      ...commandModules({
        eventStore,
        authenticator: auth.authenticator,
        writeLimits: auth.writeLimits,
        stores: {
          catalog,
          users,
          refreshTokens,
          idempotency: createSqliteIdempotencyStore(readStore),
          deliveries: webhooks.deliveries,
        },
        webhooks: webhooks.commandSide,
        config,
        personalData: keyring,
        consistencyTokens,
        flushDeleted: async () => {
          readStore.exec('PRAGMA wal_checkpoint(TRUNCATE)');
        },
        clock,
        logger,
      }),
      // The caches in front hear of each import once, from here (the only process serving it).
      ...queryModules({
        eventStore,
        authenticator: auth.authenticator,
        orders: { readModel, progress: projection },
        subscriptions: webhooks.querySide,
        catalog,
        users,
        config,
        clock,
        logger,
        metrics,
        reveal: keyring.reveal,
        consistencyTokens,
        webhookCipher: webhooks.commandSide.cipher,
      }),
      auth.module,
    ],
    readinessChecks: {
      eventLog: eventLogCheck(eventStore),
      readStore: sqliteCheck(readStore),
      dataDir: dataDirCheck(config.dataDir),
      projections: projectionLagCheck({ eventStore, projections, maxLag: config.readiness.maxProjectionLag }),
    },
    // Only once the port is ours: a start that fails on a taken port must not make (and lose) demo passwords.
    afterListen: async () => {
      if (!config.seedDemoUsers) return;
      const credentials = await seedDemoUsers(users, clock);
      if (credentials.length > 0) announce(formatDemoCredentials(credentials));
    },
  });

  return {
    url: service.url,
    async stop() {
      await service.stop();
      await webhooks.stop();
      await projection.stop();
      await eventStore.close();
      readStore.close();
      logger.info('embedded service stopped');
    },
  };
};
