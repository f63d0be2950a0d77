import type { Express, Request, RequestHandler, Response } from 'express';
import type { CachePolicy } from './http-module.ts';
import { isUnderAny } from './path-prefixes.ts';

/**
 * The answers that depend on the client or on the moment rather than on the URL: a body that came too slowly
 * (408) or was too large (413), a client with too many requests under way (429). A shared cache keying on
 * the URL must never answer them to anyone else, whatever the path.
 */
const momentaryStatuses = new Set([408, 413, 429]);

/** What the rules are applied to: one answer, and the Cache-Control its handler chose, if any. */
export type CacheableAnswer = { method: string; path: string; status: number; chosen: string | undefined };

/**
 * The caching rules of docs/caching.md, for one answer:
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
 * Undefined: the answer goes without one (a success elsewhere whose handler chose none).
 */
export const cacheControlFor = (
  { method, path, status, chosen }: CacheableAnswer,
  { privatePaths = [], publicPaths = [] }: CachePolicy,
): string | undefined => {
  if (status >= 500) return 'no-store';
  if (method !== 'GET' && method !== 'HEAD') return 'no-store';
  if (isUnderAny(path, privatePaths)) {
    return momentaryStatuses.has(status) ? 'private, no-cache, no-store' : 'private, no-cache';
  }
  if (momentaryStatuses.has(status)) return 'no-store';
  if (status >= 400 && status !== 404) {
    return status === 412 || isUnderAny(path, publicPaths) || chosen === undefined ? 'no-store' : chosen;
  }
  if (isUnderAny(path, publicPaths)) return chosen ?? 'public, s-maxage=300';
  if (status >= 400) return chosen ?? 'no-store';
  return chosen;
};

const policyKey = 'cachePolicy';

/** The app's paths that are private or public, for the senders of its answers to apply the rules with. */
export const useCachePolicy = (app: Express, policy: CachePolicy): void => {
  app.locals[policyKey] = policy;
};

/**
 * Sets an answer's Cache-Control by the rules, as it is about to be sent with `status`: called by the two
 * senders of answers, sendRepresentation (a GET's 200 or 304) and sendProblem (every error). `chosen` is what
 * the route asked for; a Cache-Control it set on the response beforehand counts as chosen too.
 */
export const setCacheControl = (request: Request, response: Response, status: number, chosen?: string) => {
  const set = response.getHeader('Cache-Control');
  const value = cacheControlFor(
    {
      method: request.method,
      path: request.path,
      status,
      chosen: chosen ?? (typeof set === 'string' ? set : undefined),
    },
    (request.app.locals[policyKey] as CachePolicy | undefined) ?? {},
  );
  if (value === undefined) response.removeHeader('Cache-Control');
  else response.setHeader('Cache-Control', value);
};

/**
 * Rule 1 for the answers a command's handler writes itself (a 201, 202 or 204): set as the request enters,
 * before any handler; an error still goes through sendProblem.
 */
export const commandAnswersNotStored: RequestHandler = (request, response, next) => {
  if (request.method !== 'GET' && request.method !== 'HEAD') response.setHeader('Cache-Control', 'no-store');
  next();
};
