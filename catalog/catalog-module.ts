import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../infrastructure/clock.ts';
import type { HttpModule } from '../infrastructure/http/http-module.ts';
import { purgeTimings, startCachePurger } from './cache-purger.ts';
import type { CatalogStore } from './catalog.ts';
import { createCatalogRepresentations } from './catalog-representations.ts';
import { catalogRoutes } from './catalog-routes.ts';
import { createPurgeMetrics } from './purge-metrics.ts';
import { httpPurgeSender } from './send-purge.ts';

/**
 * The catalogue as the public reads it (products, categories, search), cacheable by anyone, and the purges
 * that tell the caches in front when an import changed it (sent by whichever process serves it: each purge
 * is claimed, so it goes out once).
 */
const paths = ['/products', '/categories', '/search'];

export const catalogQueryModule = ({
  store,
  config,
  clock,
  logger,
  metrics,
}: {
  store: CatalogStore;
  config: { currency: string; refreshIntervalMs: number; purgeUrls: readonly string[] };
  clock: Clock;
  logger: Logger;
  metrics: Registry;
}): HttpModule => {
  const purger = startCachePurger({
    outbox: store.purges,
    urls: config.purgeUrls,
    send: httpPurgeSender(),
    now: () => clock.now().getTime(),
    logger,
    metrics: createPurgeMetrics(metrics),
    ...purgeTimings(config.refreshIntervalMs),
  });
  return {
    routers: [catalogRoutes({ store, representations: createCatalogRepresentations({ store, ...config }) })],
    paths,
    cachePolicy: { publicPaths: paths },
    stop: () => purger.stop(),
  };
};
