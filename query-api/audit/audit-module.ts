import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import { auditRoutes, type AuditDeps } from './audit-routes.ts';

/** The audit feature: the whole log in log order, for auditors and admins. */
export const auditModule = (deps: AuditDeps): HttpModule => ({
  routers: [auditRoutes(deps)],
  paths: ['/audit'],
});
