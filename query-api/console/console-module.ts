import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import { consoleRoutes } from './console-routes.ts';

/**
 * The operator console at /console: a page of this origin that uses the public API, as any client. Where
 * the commands are served by another process (the distributed mode), `commandApiUrl` is where they go.
 */
export const consoleModule = (options: { commandApiUrl?: string | undefined } = {}): HttpModule => ({
  routers: [consoleRoutes(options)],
  paths: ['/console'],
});
