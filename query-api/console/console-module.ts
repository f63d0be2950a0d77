import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import { consoleRoutes } from './console-routes.ts';

/**
 * The operator console at /console: a page of this origin that uses the public API, as any client. Where
 * the commands are served by another process (the distributed mode), `commandApiUrl` is where they go;
 * `processes` names the other processes whose metrics this one serves (GET /metrics?process={name}), which
 * the health view then reads too.
 */
export const consoleModule = (
  options: { commandApiUrl?: string | undefined; processes?: readonly string[] } = {},
): HttpModule => ({
  routers: [consoleRoutes(options)],
  paths: ['/console'],
});
