import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pathOf, routePattern } from './route-pattern.ts';
import { requestIdOf } from './request-id.ts';

/**
 * One JSON line per request once its response is done (or the client went away): request id, method,
 * route pattern, path without the query string, status, duration, and the user id when authenticated.
 * Nothing else of the request: never a header, a body or a query string (tokens, passwords, secrets and
 * personal data travel there).
 */
export const requestLog =
  (logger: Logger): RequestHandler =>
  (request, response, next) => {
    const started = performance.now();
    response.once('close', () => {
      const principal = response.locals['principal'] as { userId: string } | undefined;
      logger.info(
        {
          requestId: requestIdOf(response),
          method: request.method,
          route: routePattern(request),
          path: pathOf(request),
          status: response.statusCode,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
          ...(principal ? { userId: principal.userId } : {}),
          ...(response.writableFinished ? {} : { aborted: true }),
        },
        'request completed',
      );
    });
    next();
  };
