import express, { type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { recordRequestDuration } from '../metrics/http-metrics.ts';
import { afterResponse } from './after-response.ts';
import { bodyDeadline } from './body-deadline.ts';
import { ApiError, validationFailed } from './api-error.ts';
import { jsonBodyProblem, requireValidUtf8, requireValidUtf8Form } from './json-body-check.ts';
import { duplicateMemberIn } from './json-duplicate-members.ts';
import type { Readiness } from '../operations/readiness.ts';
import { commandAnswersNotStored, useCachePolicy } from './cache-control.ts';
import type { CachePolicy } from './http-module.ts';
import { metricsRoutes } from './metrics-routes.ts';
import type { PeerMetrics } from './peer-metrics.ts';
import {
  createProblemRenderer,
  errorHandler,
  notFoundHandler,
  problemTypeDocs,
  useProblemRenderer,
  type ErrorMapper,
  type ProblemDialect,
  type ProblemSettings,
} from './problem-details.ts';
import { readinessRoutes } from './readiness-routes.ts';
import { inSequence } from './in-sequence.ts';
import { requestId } from './request-id.ts';
import { logRequest } from './request-log.ts';
import { securityHeaders } from './security-headers.ts';
import { rejectUndecodableUrl } from './undecodable-url.ts';
import { requireWellFormedRequest } from './well-formed-request.ts';

export type HttpAppOptions = {
  problems: ProblemSettings;
  logger: Logger;
  routers: readonly (Router | RequestHandler)[];
  /** The paths whose answers are private to the caller, or public (docs/caching.md). */
  cachePolicy?: CachePolicy;
  /** The process's metrics registry: request durations go in, GET /metrics serves it. */
  metrics: Registry;
  /** Other processes whose metrics GET /metrics?process={name} serves (peer-metrics.ts); none unless told. */
  peerMetrics?: PeerMetrics;
  /** What GET /ready checks. */
  readiness: Readiness;
  errorMappers?: readonly ErrorMapper[];
  problemDialects?: readonly ProblemDialect[];
  /** Express's `trust proxy`: whom to believe about the client address (X-Forwarded-For). */
  trustProxy?: boolean | number | string;
  /**
   * Refuses requests while the process is overloaded (`startLoadShedding` of load-shedding.ts): it runs
   * right after the security headers, before the request id, the log line and the duration sample, and
   * before any body is read or token checked.
   */
  loadShedding?: RequestHandler;
  /** How long a request body may take to arrive whole (HTTP_BODY_TIMEOUT_MS); 10 s unless told. */
  bodyTimeoutMs?: number;
};

/**
 * JSON and form bodies up to 100 kB, in one layer that reads requests (GET, HEAD) pass straight through.
 * JSON nested deeper than any body of the API, or not well-formed UTF-8 or Unicode, is refused here,
 * before anything recursive meets it or anything stores it.
 */
const maxBodyBytes = 100 * 1024;
const jsonTypes = ['application/json', 'application/*+json'];

const charsetParameter = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;
const declaresUtf8OrNothing = (contentType = ''): boolean => {
  const match = charsetParameter.exec(contentType);
  return match === null || (match[1] ?? match[2])!.toLowerCase() === 'utf-8';
};

/** What is wrong with a parsed JSON body, by its value and its text (the decoded bytes), or null. */
const jsonBodyError = (value: unknown, text: string): ApiError | null => {
  const problem = jsonBodyProblem(value);
  if (problem)
    return validationFailed([{ field: 'body', message: problem }], 'The request body is malformed.');
  const duplicated = duplicateMemberIn(text);
  if (duplicated === null) return null;
  return validationFailed(
    [{ field: duplicated, message: 'is given more than once: give each member once' }],
    'The request body names a member twice.',
  );
};

const bodyParsers = (): RequestHandler => {
  // The bytes body-parser read (inflated), for what only the text shows: a member named twice.
  const jsonBytes = new WeakMap<object, Buffer>();
  const json = express.json({
    limit: maxBodyBytes,
    type: jsonTypes,
    verify: (request, response, body, encoding) => {
      requireValidUtf8(request, response, body, encoding);
      jsonBytes.set(request, body);
    },
  });
  const form = express.urlencoded({
    extended: false,
    limit: maxBodyBytes,
    parameterLimit: 100,
    verify: requireValidUtf8Form,
  });
  return (request, response, next) => {
    if (request.method === 'GET' || request.method === 'HEAD') return next();
    // At once: body-parser would read the whole declared body before answering. Node then reads and drops
    // what the client goes on sending (bounded by the request timeout), so that the answer is not lost to
    // a connection reset while the client still writes.
    if (Number(request.headers['content-length'] ?? 0) > maxBodyBytes) {
      return next(new ApiError('payload-too-large', 'The request body exceeds 100 kB.'));
    }
    // One parser, chosen by Content-Type: a JSON body is not offered to the form parser too.
    if (!request.is(jsonTypes)) return form(request, response, next);
    // JSON between systems is UTF-8 (RFC 8259, section 8.1). body-parser would decode a body declared
    // utf-16 or utf-32 as such, and a UTF-8 body so declared would read as malformed JSON (400).
    if (!declaresUtf8OrNothing(request.headers['content-type'])) {
      return next(
        new ApiError('unsupported-media-type', 'A JSON body is UTF-8: send charset=utf-8, or no charset.'),
      );
    }
    json(request, response, (error?: unknown) => {
      if (error) return next(error);
      next(jsonBodyError(request.body, jsonBytes.get(request)?.toString('utf8') ?? '') ?? undefined);
    });
  };
};

/**
 * The HTTP stack every service shares, around the routers it is given: security headers, load shedding
 * (when given), request id, one log line and one duration sample per request admitted, body limits,
 * GET /ready and GET /metrics, problem details.
 */
export const createHttpApp = ({
  problems,
  logger,
  routers,
  cachePolicy = {},
  metrics,
  peerMetrics = {},
  readiness,
  errorMappers = [],
  problemDialects = [],
  trustProxy = false,
  loadShedding,
  bodyTimeoutMs = 10_000,
}: HttpAppOptions) => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // One resource, one URL: /Orders/1 and /products/1001/ are other paths, which answer 404.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('trust proxy', trustProxy);
  // What may keep each answer (docs/caching.md): applied by sendRepresentation and sendProblem as they send.
  useCachePolicy(app, cachePolicy);
  // How errors read as problems: for the error handler, and for idempotent handlers keeping an answer.
  useProblemRenderer(app, createProblemRenderer(problems, errorMappers, problemDialects));
  // What every request meets before any route, as one layer of the app (in-sequence.ts).
  app.use(
    inSequence([
      securityHeaders(),
      commandAnswersNotStored,
      // First after the headers every response carries: a refusal costs as little as possible (no request
      // id, log line or duration sample; http_requests_shed_total counts it), so that shedding sheds load.
      ...(loadShedding ? [loadShedding] : []),
      requestId,
      afterResponse([logRequest(logger), recordRequestDuration(metrics)]),
      bodyDeadline({ timeoutMs: bodyTimeoutMs, errorTypeBase: problems.errorTypeBase }),
      requireWellFormedRequest,
      rejectUndecodableUrl,
      bodyParsers(),
    ]),
  );
  for (const router of routers) app.use(router);
  app.use(readinessRoutes(readiness), metricsRoutes(metrics, { peers: peerMetrics }));
  app.get(`${new URL(problems.errorTypeBase).pathname.replace(/\/$/, '')}/:kind`, problemTypeDocs);
  app.use(notFoundHandler(problems.errorTypeBase));
  app.use(errorHandler(logger));
  return app;
};
