import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import { orderQueryRoutes, type OrderQueryDeps } from './order-query-routes.ts';

/** The orders feature's query half: an order, the lists, an order's history. Every answer is the caller's own. */
export const ordersQueryModule = (deps: OrderQueryDeps): HttpModule => ({
  routers: [orderQueryRoutes(deps)],
  paths: ['/orders'],
  cachePolicy: { privatePaths: ['/orders'] },
});
