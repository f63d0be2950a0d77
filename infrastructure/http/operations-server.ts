import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createReadiness, type ReadinessCheck } from '../operations/readiness.ts';
import { createHttpApp } from './create-app.ts';
import { healthRoutes } from './health-routes.ts';
import { listen } from './listen.ts';

const operationsProblems = (port: number) => `http://localhost:${port}/problems`;

/**
 * The HTTP port of a process that serves no API (projections, webhook dispatcher): only what an
 * orchestrator or a monitoring system asks: GET /health, GET /ready, GET /metrics. Its problem types are
 * relative to its own address. GET /ready runs `checks`, each bounded by `config.readiness.checkTimeoutMs`.
 */
export const startOperationsServer = ({
  config: { port, host, readiness },
  logger,
  metrics,
  checks,
}: {
  /** The process's own: where it listens, and how long each check of GET /ready may take. */
  config: { port: number; host: string; readiness: { checkTimeoutMs: number } };
  logger: Logger;
  metrics: Registry;
  checks: Record<string, ReadinessCheck>;
}) =>
  listen(
    createHttpApp({
      problems: { errorTypeBase: operationsProblems(port), realm: 'order-service' },
      logger,
      routers: [healthRoutes()],
      metrics,
      readiness: createReadiness({ checks, timeoutMs: readiness.checkTimeoutMs }),
    }),
    port,
    host,
    { errorTypeBase: operationsProblems(port) },
  );
