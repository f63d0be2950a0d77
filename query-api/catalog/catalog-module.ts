import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../../infrastructure/clock.ts';
import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import { purgeTimings, startCachePurger } from './cache-purger.ts';
import type { CatalogStore } from '../../catalog/catalog.ts';
import { createCatalogRepresentations } from './catalog-representations.ts';
import { createCatalogSnapshot } from '../../catalog/catalog-snapshot.ts';
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
  // Searches run over the products in memory: no store query per search (and none a MongoDB index could
  // serve: a name contains the query anywhere).
  const snapshot = createCatalogSnapshot({ store, refreshIntervalMs: config.refreshIntervalMs });
  const searchable = { ...store, searchProducts: snapshot.searchProducts };
  return {
    routers: [
      catalogRoutes({
        store: searchable,
        representations: createCatalogRepresentations({ store, ...config }),
      }),
    ],
    paths,
    cachePolicy: { publicPaths: paths },
    stop: async () => {
      snapshot.stop();
      await purger.stop();
    },
  };
};
