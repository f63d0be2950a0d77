import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { seedDemoCatalog } from '../catalog/demo-catalog.ts';
import { createMongoCatalogStore } from '../catalog/mongo-catalog-store.ts';
import { formatDemoCredentials, seedDemoUsers } from '../identity/demo-users.ts';
import { createIdentityModule, resolveSigningKey } from '../identity/identity-module.ts';
import { createMongoRefreshTokenStore } from '../identity/mongo-refresh-token-store.ts';
import { createMongoUserStore } from '../identity/mongo-user-store.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { countingAppends } from '../infrastructure/event-store/counting-appends.ts';
import { openEventLog } from '../infrastructure/event-store/open-event-log.ts';
import { createHttpApp } from '../infrastructure/http/create-app.ts';
import { healthRoutes } from '../infrastructure/http/health-routes.ts';
import { listen } from '../infrastructure/http/listen.ts';
import { startLoadShedding } from '../infrastructure/http/load-shedding.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';
import { createReadiness, pingCheck } from '../infrastructure/operations/readiness.ts';
import { dataDirCheck, eventLogCheck } from '../infrastructure/operations/store-checks.ts';
import { createMongoDeliveryQueue } from '../projections/webhook-deliveries/mongo-delivery-queue.ts';
import { createSecretCipher, resolveSecretKey } from '../infrastructure/crypto/secret-cipher.ts';
import { warnWhenPrivateNetworksAllowed } from '../infrastructure/outbound-http/private-network-warning.ts';
import { checkWebhookUrl, createHostResolver } from '../infrastructure/outbound-http/target-check.ts';
import type { CommandApiConfig } from './config.ts';
import { createMongoIdempotencyStore } from './idempotency/mongo-idempotency-store.ts';
import { orderCommandRoutes } from './orders/order-command-routes.ts';
import { orderErrors } from './orders/order-errors.ts';
import { webhookCommandRoutes } from './webhook-subscriptions/subscription-command-routes.ts';
import { webhookErrors } from './webhook-subscriptions/subscription-errors.ts';
import { serviceDocsRoutes } from '../openapi/service-document.ts';

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
  const metrics = createMetricsRegistry();
  const mongo = await connectMongo(config.mongo);
  const eventStore = countingAppends(openEventLog(config.eventLog), metrics);
  const { db } = mongo;
  const users = await createMongoUserStore(db);
  const catalog = await createMongoCatalogStore(db);
  if (config.catalog.seedDemo && (await seedDemoCatalog(catalog, config.catalog.currency))) {
    logger.info('imported the demo catalogue into the empty catalogue');
  }
  const identity = createIdentityModule({
    users,
    refreshTokens: await createMongoRefreshTokenStore(db),
    signingKey: resolveSigningKey(config.identity, null),
    config: config.identity,
    clock,
  });
  const idempotency = await createMongoIdempotencyStore(db);
  const purgeIdempotencyKeys = setInterval(() => {
    idempotency.purgeExpired(clock.now()).catch((error: unknown) => {
      logger.error({ err: error }, 'could not purge expired idempotency keys');
    });
  }, 3_600_000).unref();
  const readiness = createReadiness({
    timeoutMs: config.readiness.checkTimeoutMs,
    checks: {
      eventLog: eventLogCheck(eventStore),
      mongodb: pingCheck(mongo.ping),
      // A log in a local SQLite file: its directory must take writes.
      ...(config.eventLog.kind === 'sqlite-file'
        ? { dataDir: dataDirCheck(dirname(config.eventLog.path)) }
        : {}),
    },
  });
  const policy = { allowPrivateNetworks: config.webhooks.allowPrivateNetworks };
  warnWhenPrivateNetworksAllowed(policy, logger);
  const resolve = createHostResolver({ dnsServers: config.webhooks.dnsServers });

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
      webhookCommandRoutes({
        eventStore,
        authenticator: identity.authenticator,
        cipher: createSecretCipher(resolveSecretKey(config.webhooks, null)),
        checkUrl: (url) => checkWebhookUrl(url, { policy, resolve }),
        deliveries: await createMongoDeliveryQueue(db),
        clock,
        newId: randomUUID,
      }),
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
  logger.info({ url: http.url }, 'command API listening');
  return {
    url: http.url,
    async stop() {
      clearInterval(purgeIdempotencyKeys);
      await http.close();
      loadShedding.stop();
      await eventStore.close();
      await mongo.close();
      logger.info('command API stopped');
    },
  };
};
