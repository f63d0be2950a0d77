import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Readiness } from '../operations/readiness.ts';
import { createHttpApp } from './create-app.ts';
import { healthRoutes } from './health-routes.ts';
import { listen } from './listen.ts';

const operationsProblems = (port: number) => `http://localhost:${port}/problems`;

/**
 * The HTTP port of a process that serves no API (projections, webhook dispatcher): only what an
 * orchestrator or a monitoring system asks: GET /health, GET /ready, GET /metrics. Its problem types are
 * relative to its own address.
 */
export const startOperationsServer = ({
  port,
  host,
  logger,
  metrics,
  readiness,
}: {
  port: number;
  host: string;
  logger: Logger;
  metrics: Registry;
  readiness: Readiness;
}) =>
  listen(
    createHttpApp({
      problems: { errorTypeBase: operationsProblems(port), realm: 'order-service' },
      logger,
      routers: [healthRoutes()],
      metrics,
      readiness,
    }),
    port,
    host,
    { errorTypeBase: operationsProblems(port) },
  );
