import type { Logger } from 'pino';
import type { ResponseObserver } from './after-response.ts';
import { pathOf, routePattern } from './route-pattern.ts';
import { requestIdOf } from './request-id.ts';

/**
 * One JSON line per request once its response is done (or the client went away): request id, method,
 * route pattern, path without the query string, status, duration, and the user id when authenticated.
 * Nothing else of the request: never a header, a body or a query string (tokens, passwords, secrets and
 * personal data travel there).
 */
export const logRequest =
  (logger: Logger): ResponseObserver =>
  (request, response, durationMs) => {
    if (!logger.isLevelEnabled('info')) return;
    const principal = response.locals['principal'] as { userId: string } | undefined;
    logger.info(
      {
        requestId: requestIdOf(response),
        method: request.method,
        route: routePattern(request),
        path: pathOf(request),
        status: response.statusCode,
        durationMs: Math.round(durationMs * 1000) / 1000,
        ...(principal ? { userId: principal.userId } : {}),
        ...(response.writableFinished ? {} : { aborted: true }),
      },
      'request completed',
    );
  };
