import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import { webhookQueryRoutes, type WebhookQueryDeps } from './subscription-query-routes.ts';

/** The webhook subscriptions feature's query half: subscriptions and their delivery attempts (admins). */
export const subscriptionsQueryModule = (deps: WebhookQueryDeps): HttpModule => ({
  routers: [webhookQueryRoutes(deps)],
  paths: ['/webhooks'],
});
