import type { Request } from 'express';

/**
 * The route pattern that answered a request, such as `/orders/:orderId`, or `unmatched`: never the raw
 * path, so that labels and log fields keep a bounded set of values. Read once the response is sent
 * (routers are mounted at the root, so the pattern is the whole path pattern).
 */
export const routePattern = (request: Request): string => {
  const path = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${request.baseUrl}${path}` || '/' : 'unmatched';
};

/** The request's path, without its query string. */
export const pathOf = (request: Request): string => request.originalUrl.split('?', 1)[0]!;
