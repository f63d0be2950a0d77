import type { Logger } from 'pino';
import { openSecurity } from '../assembly/security.ts';
import { openServerStores } from '../assembly/server-stores.ts';
import { seedDemoCatalogIfEmpty } from '../catalog/demo-catalog.ts';
import { withAddressCache } from '../identity/address-cache.ts';
import type { Clock } from '../infrastructure/clock.ts';
import { countingAppends } from '../infrastructure/event-store/counting-appends.ts';
import { checkPortAvailable } from '../infrastructure/http/listen.ts';
import { startHttpService } from '../infrastructure/http/start-http-service.ts';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry.ts';
import { webhookTargets } from '../infrastructure/outbound-http/webhook-targets.ts';
import { documentSettingsOf, serviceDocsRoutes } from '../openapi/service-document.ts';
import { authorize } from './authorize.ts';
import { commandModules } from './command-modules.ts';
import type { CommandApiConfig } from './config.ts';
import { announceDemoUsers } from './identity/demo-users.ts';

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
  const metrics = createMetricsRegistry();
  const server = await openServerStores(config, 'command-api', {
    appends: true,
    wrapLog: (log) => countingAppends(log, metrics),
  });
  const { stores, eventStore } = server;
  const users = withAddressCache(await stores.users());
  const catalog = await seedDemoCatalogIfEmpty(await stores.catalog(), config.catalog, clock, logger);
  const security = await openSecurity({ config, stores, users, keyDir: null, authorize, clock, logger });
  const service = await startHttpService({
    name: 'command API',
    config,
    logger,
    metrics,
    first: serviceDocsRoutes(documentSettingsOf(config)),
    modules: [
      ...commandModules({
        eventStore,
        security,
        stores: {
          catalog,
          users,
          refreshTokens: await stores.refreshTokens(),
          idempotency: await stores.idempotency(),
          deliveries: await stores.deliveryQueue(),
        },
        checkUrl: webhookTargets(config.webhooks, logger).checkUrl,
        config,
        clock,
        logger,
      }),
      security.auth.module,
    ],
    readinessChecks: server.readiness,
    afterListen: announceDemoUsers({ seed: config.seedDemoUsers, users, clock, announce }),
  });
  return {
    url: service.url,
    async stop() {
      await service.stop();
      await server.close();
      logger.info('command API stopped');
    },
  };
};
