import type { Logger } from 'pino';
import { createHttpApp } from './create-app.ts';
import { healthRoutes } from './health-routes.ts';
import { listen } from './listen.ts';

/**
 * The HTTP port of a process that serves no API (projections, webhook dispatcher): only what an
 * orchestrator asks, such as GET /health. Its problem types are relative to its own address.
 */
export const startOperationsServer = ({
  port,
  host,
  logger,
}: {
  port: number;
  host: string;
  logger: Logger;
}) =>
  listen(
    createHttpApp({
      problems: { errorTypeBase: `http://localhost:${port}/problems`, realm: 'order-service' },
      logger,
      routers: [healthRoutes()],
    }),
    port,
    host,
  );
