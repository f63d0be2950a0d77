import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import { webhookCommandRoutes, type WebhookCommandDeps } from './subscription-command-routes.ts';
import { webhookErrors } from './subscription-errors.ts';

/** The webhook subscriptions feature's command half: register, change, rotate, test, retry, remove (admins). */
export const subscriptionsCommandModule = (deps: WebhookCommandDeps): HttpModule => ({
  routers: [webhookCommandRoutes(deps)],
  paths: ['/webhooks'],
  errorMappers: [webhookErrors],
});
