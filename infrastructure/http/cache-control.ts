import { ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';
import type { CachePolicy } from './http-module.ts';
import { isUnderAny } from './path-prefixes.ts';

/**
 * The answers that depend on the client or on the moment rather than on the URL: a body that came too slowly
 * (408) or was too large (413), a client with too many requests under way (429). A shared cache keying on
 * the URL must never answer them to anyone else, whatever the path.
 */
const momentaryStatuses = new Set([408, 413, 429]);

/**
 * The caching rules of docs/caching.md, for one response about to send its headers:
 *  0. a 5xx is never stored by anyone: no-store; nor is a 408, 413 or 429 (over anything the handler
 *     chose), which answers this client at this moment, not the URL: no-store, after rule 2's
 *     `private, no-cache` on a private path;
 *  1. a method other than GET or HEAD: no-store;
 *  2. the features' private paths (/auth/, /users/me, /orders): private, no-cache (over anything the
 *     handler chose);
 *  3. their public paths (/products, /categories, /search): public, s-maxage=300 unless the handler chose
 *     its own Cache-Control, for a success, a 304 or a 404 (which an import purges by its Surrogate-Key).
 *     Any other error there is no-store: a 400 may answer the request's headers rather than its URL (two
 *     Host headers, HTTP/2.0 on the request line), a 412 its If-Match or If-Unmodified-Since, and a shared
 *     cache keying on the URL alone would answer it to every later GET;
 *  4. (ours) any other error without a Cache-Control of its own: no-store (a 412 always). An error on
 *     another path (a 404 on a path in other case, a 401 of an admin route) says nothing a cache should
 *     keep.
 */
const applyCacheControlRules = (
  request: Request,
  response: Response,
  { privatePaths = [], publicPaths = [] }: CachePolicy,
): void => {
  const path = request.path;
  const status = response.statusCode;
  if (status >= 500) {
    response.setHeader('Cache-Control', 'no-store');
  } else if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Cache-Control', 'no-store');
  } else if (isUnderAny(path, privatePaths)) {
    response.setHeader(
      'Cache-Control',
      momentaryStatuses.has(status) ? 'private, no-cache, no-store' : 'private, no-cache',
    );
  } else if (momentaryStatuses.has(status)) {
    response.setHeader('Cache-Control', 'no-store');
  } else if (status >= 400 && status !== 404) {
    if (status === 412 || isUnderAny(path, publicPaths) || !response.hasHeader('Cache-Control'))
      response.setHeader('Cache-Control', 'no-store');
  } else if (isUnderAny(path, publicPaths) && !response.hasHeader('Cache-Control')) {
    response.setHeader('Cache-Control', 'public, s-maxage=300');
  } else if (status >= 400 && !response.hasHeader('Cache-Control')) {
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
