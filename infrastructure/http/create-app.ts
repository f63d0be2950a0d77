import express, { type Router } from 'express';
import type { Logger } from 'pino';
import { cacheControlPolicy } from './cache-control.ts';
import {
  errorHandler,
  notFoundHandler,
  problemTypeDocs,
  type ErrorMapper,
  type ProblemSettings,
} from './problem-details.ts';
import { requestId } from './request-id.ts';

export type HttpAppOptions = {
  problems: ProblemSettings;
  logger: Logger;
  routers: Router[];
  errorMappers?: ErrorMapper[];
  /** Express's `trust proxy`: whom to believe about the client address (X-Forwarded-For). */
  trustProxy?: boolean | number | string;
};

/** The HTTP stack every service shares, around the routers it is given. */
export const createHttpApp = ({
  problems,
  logger,
  routers,
  errorMappers = [],
  trustProxy = false,
}: HttpAppOptions) => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxy);
  app.use(requestId);
  app.use(cacheControlPolicy);
  app.use(express.json({ limit: '100kb', type: ['application/json', 'application/*+json'] }));
  app.use(express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 100 }));
  for (const router of routers) app.use(router);
  app.get(`${new URL(problems.errorTypeBase).pathname.replace(/\/$/, '')}/:kind`, problemTypeDocs);
  app.use(notFoundHandler(problems.errorTypeBase));
  app.use(errorHandler(problems, logger, errorMappers));
  return app;
};
