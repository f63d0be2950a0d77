import { ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';
import type { CachePolicy } from './http-module.ts';
import { isUnderAny } from './path-prefixes.ts';

/**
 * The caching rules of docs/caching.md, for one response about to send its headers:
 *  0. a 5xx is never stored by anyone: no-store;
 *  1. a method other than GET or HEAD: no-store;
 *  2. the features' private paths (/auth/, /users/me, /orders): private, no-cache (over anything the
 *     handler chose);
 *  3. their public paths (/products, /categories, /search): public, s-maxage=300 unless the handler chose
 *     its own Cache-Control; but a 412 there is no-store: it answers the request's If-Match or
 *     If-Unmodified-Since, not the URL, and a shared cache keying on the URL alone would answer it to every
 *     later GET;
 *  4. (ours) any other error without a Cache-Control of its own: no-store. An error on another path (a
 *     404 on a path in other case, a 401 of an admin route) says nothing a cache should keep.
 */
const applyCacheControlRules = (
  request: Request,
  response: Response,
  { privatePaths = [], publicPaths = [] }: CachePolicy,
): void => {
  const path = request.path;
  if (response.statusCode >= 500) {
    response.setHeader('Cache-Control', 'no-store');
  } else if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Cache-Control', 'no-store');
  } else if (isUnderAny(path, privatePaths)) {
    response.setHeader('Cache-Control', 'private, no-cache');
  } else if (response.statusCode === 412) {
    response.setHeader('Cache-Control', 'no-store');
  } else if (isUnderAny(path, publicPaths) && !response.hasHeader('Cache-Control')) {
    response.setHeader('Cache-Control', 'public, s-maxage=300');
  } else if (response.statusCode >= 400 && !response.hasHeader('Cache-Control')) {
    response.setHeader('Cache-Control', 'no-store');
  }
};

/**
 * Applies the rules to every response of the app, whoever sends it (handlers, errors, 404s), at the last
 * moment: in writeHead, overridden once on the app's own response prototype rather than per request.
 */
export const enforceCacheControlRules = (app: Express, policy: CachePolicy): void => {
  const writeHead = ServerResponse.prototype.writeHead;
  app.response.writeHead = function (this: Response, ...args: Parameters<ServerResponse['writeHead']>) {
    if (typeof args[0] === 'number') this.statusCode = args[0];
    applyCacheControlRules(this.req, this, policy);
    return writeHead.apply(this, args);
  } as unknown as Response['writeHead'];
};
