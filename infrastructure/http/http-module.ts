import type { Router } from 'express';
import type { ReadinessCheck } from '../operations/readiness.ts';
import type { ErrorMapper, ProblemDialect } from './problem-details.ts';

/**
 * Which paths' answers a shared cache may keep (docs/caching.md): a feature names its own. A prefix covers itself
 * and what is below it (`/orders` covers `/orders/1`, not `/ordersfoo`); one ending in `/` is taken as is.
 */
export type CachePolicy = {
  /** GET answers are the caller's own: `private, no-cache`, over whatever the handler chose. */
  privatePaths?: readonly string[];
  /** GET answers are the same for everyone: `public, s-maxage=300` unless the handler chose its own. */
  publicPaths?: readonly string[];
};

/**
 * What a feature gives the HTTP process that mounts it: its routers, the mapping of its errors to problem
 * details, the cache policy of its paths, what GET /ready should check for it, and what to stop after the
 * server has closed. A feature has a command half (mounted by the command API) and a query half (mounted by
 * the query API); the embedded process mounts both.
 */
export type HttpModule = {
  routers: readonly Router[];
  /**
   * The path prefixes its routers answer (covering themselves and what is below, as in CachePolicy): only
   * a request under one of them enters the module's routers (module-dispatch.ts). Without it, every
   * request does.
   */
  paths?: readonly string[];
  errorMappers?: readonly ErrorMapper[];
  /** What the problems of some of its paths add (the token endpoints' RFC 6749 error members). */
  problemDialects?: readonly ProblemDialect[];
  cachePolicy?: CachePolicy;
  readinessChecks?: Record<string, ReadinessCheck>;
  stop?: () => Promise<void> | void;
};
