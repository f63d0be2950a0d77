import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import { orderCommandRoutes, type OrderCommandDeps } from './order-command-routes.ts';
import { orderErrors } from './order-errors.ts';

const idempotencyPurgeIntervalMs = 3_600_000;

/** The orders feature's command half: place an order and move it along, with idempotent retries. */
export const ordersCommandModule = (deps: OrderCommandDeps): HttpModule => {
  const purgeExpiredKeys = setInterval(() => {
    deps.idempotency.purgeExpired(deps.clock.now()).catch((error: unknown) => {
      deps.logger.error({ err: error }, 'could not purge expired idempotency keys');
    });
  }, idempotencyPurgeIntervalMs).unref();
  return {
    routers: [orderCommandRoutes(deps)],
    paths: ['/orders'],
    errorMappers: [orderErrors],
    stop: () => clearInterval(purgeExpiredKeys),
  };
};
