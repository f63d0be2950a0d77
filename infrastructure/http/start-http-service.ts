import type { RequestListener } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { HttpLimits } from '../config/service-environment.ts';
import { createReadiness, type ReadinessCheck } from '../operations/readiness.ts';
import { createHttpApp } from './create-app.ts';
import { healthRoutes } from './health-routes.ts';
import type { HttpModule } from './http-module.ts';
import { listen } from './listen.ts';
import { dispatchToModules } from './module-dispatch.ts';
import type { PeerMetrics } from './peer-metrics.ts';
import { startLoadShedding } from './load-shedding.ts';

/** What every HTTP process is configured with, whatever features it mounts. */
export type HttpServiceConfig = {
  port: number;
  host: string;
  errorTypeBase: string;
  http: HttpLimits;
  readiness: { checkTimeoutMs: number };
  auth: { realm: string; trustProxy: boolean | number | string };
};

export type RunningHttpService = {
  url: string;
  /** What the server hands each request: for tests that send requests in-process, without a socket. */
  handler: RequestListener;
  stop: () => Promise<void>;
};

/**
 * One HTTP process: the shared stack (createHttpApp) around the features' modules, mounted in the order
 * given after `first` (the API document's OPTIONS and 405 answers, before any router answers them its own
 * way), load shedding, GET /health, /ready (the process's checks and its modules'), /metrics, and a
 * shutdown that closes the server first, then stops the modules in reverse order.
 */
export const startHttpService = async ({
  name,
  config,
  logger,
  metrics,
  peerMetrics,
  first,
  modules,
  readinessChecks,
  afterListen,
}: {
  /** How the log names the process: 'embedded service', 'command API', ... */
  name: string;
  config: HttpServiceConfig;
  logger: Logger;
  metrics: Registry;
  /** Other processes whose metrics this one serves as GET /metrics?process={name} (peer-metrics.ts). */
  peerMetrics?: PeerMetrics;
  first: RequestHandler;
  modules: readonly HttpModule[];
  readinessChecks: Record<string, ReadinessCheck>;
  /** Runs once the port is ours (a start that fails to listen must not, for instance, make demo users). */
  afterListen?: () => Promise<void>;
}): Promise<RunningHttpService> => {
  const readiness = createReadiness({
    timeoutMs: config.readiness.checkTimeoutMs,
    checks: Object.assign({}, readinessChecks, ...modules.map((module) => module.readinessChecks ?? {})),
  });
  // Past its bounds the process answers 503 overloaded at once: latency and memory stay bounded under overload.
  const loadShedding = startLoadShedding({
    config: config.http,
    errorTypeBase: config.errorTypeBase,
    metrics,
  });
  const app = createHttpApp({
    problems: { errorTypeBase: config.errorTypeBase, realm: config.auth.realm },
    logger,
    trustProxy: config.auth.trustProxy,
    routers: [first, dispatchToModules(modules), healthRoutes()],
    cachePolicy: {
      privatePaths: modules.flatMap((module) => module.cachePolicy?.privatePaths ?? []),
      publicPaths: modules.flatMap((module) => module.cachePolicy?.publicPaths ?? []),
    },
    errorMappers: modules.flatMap((module) => module.errorMappers ?? []),
    problemDialects: modules.flatMap((module) => module.problemDialects ?? []),
    loadShedding: loadShedding.middleware,
    bodyTimeoutMs: config.http.bodyTimeoutMs,
    metrics,
    ...(peerMetrics ? { peerMetrics } : {}),
    readiness,
  });
  const stopModules = async () => {
    for (const module of [...modules].reverse()) await module.stop?.();
  };
  let http;
  try {
    http = await listen(app, config.port, config.host, {
      ...config.http,
      errorTypeBase: config.errorTypeBase,
    });
  } catch (error) {
    loadShedding.stop();
    await stopModules();
    throw error;
  }
  await afterListen?.();
  logger.info({ url: http.url }, `${name} listening`);
  return {
    url: http.url,
    handler: app,
    async stop() {
      await http.close();
      loadShedding.stop();
      await stopModules();
    },
  };
};
