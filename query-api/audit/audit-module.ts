import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import type { Authenticator } from '../../identity/authenticator.ts';
import { auditRoutes } from './audit-routes.ts';

/** The audit feature: the whole log in log order, for auditors and admins. */
export const auditModule = (deps: { eventStore: EventStore; authenticator: Authenticator }): HttpModule => ({
  routers: [auditRoutes(deps)],
  paths: ['/audit'],
});
