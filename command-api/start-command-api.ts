import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { webhookTargets } from '../infrastructure/outbound-http/webhook-targets.ts';
import { commandModules } from './command-modules.ts';
import { checkPortAvailable } from '../infrastructure/http/listen.ts';
import { mongoUnavailable } from '../infrastructure/mongo/mongo-errors.ts';
import { startHttpService } from '../infrastructure/http/start-http-service.ts';
import { seedDemoCatalog } from '../projections/catalog/demo-catalog.ts';
import { createMongoCatalogStore } from '../projections/catalog/mongo-catalog-store.ts';
import { formatDemoCredentials, seedDemoUsers } from './identity/demo-users.ts';
import { roles, staffRoles } from '../domain/identity/roles.ts';
import { createAuthModule, resolveSigningKey } from '../infrastructure/auth/auth-module.ts';
import { authorize } from './authorize.ts';
import { createMongoRefreshTokenStore } from '../infrastructure/auth/mongo-refresh-token-store.ts';
import { withAddressCache } from '../projections/identity/address-cache.ts';
import { createMongoUserStore } from '../projections/identity/mongo-user-store.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { countingAppends } from '../infrastructure/event-store/counting-appends.ts';
import { openEventLog } from '../infrastructure/event-store/open-event-log.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';
import { pingCheck } from '../infrastructure/operations/readiness.ts';
import { dataDirCheck, eventLogCheck } from '../infrastructure/operations/store-checks.ts';
import { createMongoDeliveryQueue } from '../projections/webhook-deliveries/mongo-delivery-queue.ts';
import { openKeyring } from '../infrastructure/personal-data/open-keyring.ts';
import { createMongoDataKeyStore } from '../infrastructure/personal-data/mongo-data-key-store.ts';
import { createSecretCipher, resolveSecretKey } from '../infrastructure/crypto/secret-cipher.ts';
import { resolveConsistencyTokenKey } from '../infrastructure/config/consistency-token-environment.ts';
import { createConsistencyTokens } from '../infrastructure/http/consistency-tokens.ts';
import type { CommandApiConfig } from './config.ts';
import { createMongoIdempotencyStore } from './idempotency/mongo-idempotency-store.ts';
import { documentSettingsOf, serviceDocsRoutes } from '../openapi/service-document.ts';

export type CommandApiDeps = {
  config: CommandApiConfig;
  logger: Logger;
  clock: Clock;
  /** Where one-time notices for the operator go (the demo credentials): stderr, never the log. */
  announce: (text: string) => void;
};

/**
 * The command API of the distributed mode: appends to the event log, answers every write of the HTTP API
 * (POST, PUT, PATCH, DELETE), and nothing else. Users, tokens, the catalogue (for prices), idempotency keys
 * and the webhook retry state (for an admin's retry) are in MongoDB.
 */
export const startCommandApi = async ({ config, logger, clock, announce }: CommandApiDeps) => {
  // A port it cannot listen on stops the start before the demo catalogue is imported into MongoDB.
  await checkPortAvailable(config.port, config.host);
  const consistencyTokens = createConsistencyTokens(
    resolveConsistencyTokenKey(config.consistencyTokens, null),
  );
  const metrics = createMetricsRegistry();
  const mongo = await connectMongo(config.mongo);
  const eventStore = countingAppends(await openEventLog(config.eventLog, 'command-api'), metrics);
  const { db } = mongo;
  const users = withAddressCache(await createMongoUserStore(db));
  const catalog = await createMongoCatalogStore(db);
  if (config.catalog.seedDemo && (await seedDemoCatalog(catalog, config.catalog.currency, clock.now()))) {
    logger.info('imported the demo catalogue into the empty catalogue');
  }
  const keyring = openKeyring({
    store: createMongoDataKeyStore(db),
    config: config.personalData,
    generatedKeyPath: null,
    logger,
  });
  const refreshTokens = await createMongoRefreshTokenStore(db);
  const auth = createAuthModule({
    accounts: users,
    refreshTokens,
    signingKey: resolveSigningKey(config.auth, null),
    roles,
    staffRoles,
    authorize,
    config: config.auth,
    clock,
  });
  const service = await startHttpService({
    name: 'command API',
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
          idempotency: await createMongoIdempotencyStore(db),
          deliveries: await createMongoDeliveryQueue(db),
        },
        webhooks: {
          cipher: createSecretCipher(resolveSecretKey(config.webhooks, null)),
          checkUrl: webhookTargets(config.webhooks, logger).checkUrl,
        },
        config,
        personalData: keyring,
        consistencyTokens,
        clock,
        logger,
      }),
      auth.module,
    ],
    storeErrors: [mongoUnavailable],
    readinessChecks: {
      eventLog: eventLogCheck(eventStore),
      mongodb: pingCheck(mongo.ping),
      // A log in a local SQLite file: its directory must take writes.
      ...(config.eventLog.kind === 'sqlite-file'
        ? { dataDir: dataDirCheck(dirname(config.eventLog.path)) }
        : {}),
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
      await eventStore.close();
      await mongo.close();
      logger.info('command API stopped');
    },
  };
};
