import express, { type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { enforceCacheControlRules } from './cache-control.ts';
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

/** JSON and form bodies up to 100 kB, in one layer that reads requests (GET, HEAD) pass straight through. */
const bodyParsers = (): RequestHandler => {
  const json = express.json({ limit: '100kb', type: ['application/json', 'application/*+json'] });
  const form = express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 100 });
  return (request, response, next) => {
    if (request.method === 'GET' || request.method === 'HEAD') return next();
    json(request, response, (error?: unknown) => (error ? next(error) : form(request, response, next)));
  };
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
  enforceCacheControlRules(app);
  app.use(requestId);
  app.use(bodyParsers());
  for (const router of routers) app.use(router);
  app.get(`${new URL(problems.errorTypeBase).pathname.replace(/\/$/, '')}/:kind`, problemTypeDocs);
  app.use(notFoundHandler(problems.errorTypeBase));
  app.use(errorHandler(problems, logger, errorMappers));
  return app;
};
