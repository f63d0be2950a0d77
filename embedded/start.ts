import { join } from 'node:path';
import express from 'express';
import type { Logger } from 'pino';
import { createSqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.ts';
import { errorHandler, notFoundHandler } from '../infrastructure/http/problem-details.ts';
import { listen } from '../infrastructure/http/listen.ts';
import type { EmbeddedConfig } from './config.ts';

export type EmbeddedDeps = { config: EmbeddedConfig; logger: Logger };

export type RunningService = { url: string; stop: () => Promise<void> };

/**
 * The embedded default: every service of the project in this one process, on one port, over the
 * node:sqlite event log under DATA_DIR. Later issues mount the command API, query API, projections and
 * webhook dispatcher here; for now it opens the event log and answers the liveness probe.
 */
export const startEmbedded = async ({ config, logger }: EmbeddedDeps): Promise<RunningService> => {
  const eventStore = createSqliteEventStore({
    path: join(config.dataDir, 'events.sqlite'),
    durability: config.eventLogDurability,
  });

  const app = express();
  app.disable('x-powered-by');
  const { errorTypeBase } = config;
  app.get('/health', (_request, response) => {
    response.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  app.use(notFoundHandler(errorTypeBase));
  app.use(errorHandler(errorTypeBase, logger));

  const http = await listen(app, config.port, config.host);
  logger.info({ url: http.url, dataDir: config.dataDir }, 'embedded service listening');

  return {
    url: http.url,
    async stop() {
      await http.close();
      await eventStore.close();
      logger.info('embedded service stopped');
    },
  };
};
