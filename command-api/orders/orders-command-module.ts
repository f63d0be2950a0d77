import type { CatalogStore } from '../../catalog/catalog.ts';
import { createCatalogSnapshot } from '../../catalog/catalog-snapshot.ts';
import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import { orderCommandRoutes, type OrderCommandDeps } from './order-command-routes.ts';
import { orderErrors } from './order-errors.ts';

const idempotencyPurgeIntervalMs = 3_600_000;

/**
 * The orders feature's command half: place an order and move it along, with idempotent retries. Orders are
 * priced from a snapshot of the catalogue in memory, reloaded when its revision moves (checked every
 * `catalogRefreshIntervalMs`): placing an order reads no product from the store.
 */
export const ordersCommandModule = ({
  catalog,
  catalogRefreshIntervalMs,
  ...rest
}: Omit<OrderCommandDeps, 'catalog'> & {
  catalog: Pick<CatalogStore, 'revision' | 'listProducts' | 'getProduct'>;
  catalogRefreshIntervalMs: number;
}): HttpModule => {
  const products = createCatalogSnapshot({ store: catalog, refreshIntervalMs: catalogRefreshIntervalMs });
  const deps: OrderCommandDeps = { ...rest, catalog: products };
  const purgeExpiredKeys = setInterval(() => {
    deps.idempotency.purgeExpired(deps.clock.now()).catch((error: unknown) => {
      deps.logger.error({ err: error }, 'could not purge expired idempotency keys');
    });
  }, idempotencyPurgeIntervalMs).unref();
  return {
    routers: [orderCommandRoutes(deps)],
    paths: ['/orders'],
    errorMappers: [orderErrors],
    stop: () => {
      clearInterval(purgeExpiredKeys);
      products.stop();
    },
  };
};
