import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { InvariantViolationError } from '../../domain/shared/errors.ts';
import { ConcurrencyExhaustedError } from '../event-sourcing/command-handler.ts';
import { storageFailureOf } from '../storage/storage-failure.ts';
import { EventLogUnavailableError } from '../event-store/event-store.ts';
import { isMongoUnreachable } from '../mongo/mongo-unavailable.ts';
import type { FieldError } from '../validation/field-errors.ts';
import { ApiError, UnauthorizedError } from './api-error.ts';
import { problemKinds, type ProblemKind } from './problem-kinds.ts';
import { requirePreconditionsWithoutValidators } from './representation.ts';
import { sendAnswer, type Answer } from './answer.ts';
import { setCacheControl } from './cache-control.ts';

/** RFC 9457 problem details, with the members docs/orders.md lists; extension members ride along. */
export type ProblemDetails = {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: { field: string; message: string }[];
  [extension: string]: unknown;
};

export type ProblemSettings = {
  /** `{error_type_base}`: problem types are `${errorTypeBase}/${kind}`. */
  errorTypeBase: string;
  /** The realm of WWW-Authenticate challenges. */
  realm: string;
};

/** The most `errors` entries a problem lists: the last one then says how many more were left out. */
export const maxFieldErrors = 100;

const capped = (errors: FieldError[]): FieldError[] => {
  if (errors.length <= maxFieldErrors) return errors;
  const left = errors.length - (maxFieldErrors - 1);
  return [
    ...errors.slice(0, maxFieldErrors - 1),
    { field: '(more)', message: `${left} more errors were left out` },
  ];
};

export const problem = (
  errorTypeBase: string,
  kind: ProblemKind,
  detail: string,
  instance: string,
  extensions: Record<string, unknown> = {},
): ProblemDetails => ({
  type: `${errorTypeBase}/${kind}`,
  title: problemKinds[kind].title,
  status: problemKinds[kind].status,
  detail,
  instance,
  ...extensions,
  ...(Array.isArray(extensions['errors']) ? { errors: capped(extensions['errors'] as FieldError[]) } : {}),
});

/** A problem as an answer: what is sent, and what an idempotent request keeps of it. */
export const problemAnswer = (body: ProblemDetails, headers: Record<string, string> = {}): Answer => ({
  status: body.status,
  headers: { ...headers, 'Content-Type': 'application/problem+json; charset=utf-8' },
  body: JSON.stringify(body),
});

export const sendProblem = (
  response: Response,
  body: ProblemDetails,
  headers: Record<string, string> = {},
): void => {
  const { 'Cache-Control': chosen, ...rest } = headers;
  setCacheControl(response.req, response, body.status, chosen);
  sendAnswer(response, problemAnswer(body, rest));
};

/** Errors of body-parser (express.json / express.urlencoded) that are the client's fault. */
const bodyParserProblem = (error: { type?: string; status?: number }): ApiError | undefined => {
  switch (error.type) {
    case 'entity.parse.failed':
      return new ApiError('validation-failed', 'The request body is not a JSON object or array.', {
        extensions: { errors: [{ field: 'body', message: 'malformed JSON, or not an object or array' }] },
      });
    case 'entity.verify.failed':
      return new ApiError('validation-failed', 'The request body is not valid UTF-8.', {
        extensions: { errors: [{ field: 'body', message: 'not valid UTF-8' }] },
      });
    case 'entity.too.large':
      return new ApiError('payload-too-large', 'The request body exceeds 100 kB.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported-media-type', 'The body encoding or charset is not supported.');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'parameters.too.many':
      return unreadableBody('unreadable body');
    default:
      return clientHttpError(error);
  }
};

const unreadableBody = (message: string) =>
  new ApiError('validation-failed', 'The request body could not be read.', {
    extensions: { errors: [{ field: 'body', message }] },
  });

/**
 * Any other error that body-parser, the router or Node marked as the client's (an http-errors error with a
 * 4xx status, such as a gzip, deflate or br body that does not decode): answered by its status, never 500.
 */
const clientHttpError = (error: { status?: number; expose?: boolean }): ApiError | undefined => {
  const { status } = error;
  if (error.expose !== true || status === undefined || status < 400 || status > 499) return undefined;
  if (status === 413) return new ApiError('payload-too-large', 'The request body exceeds 100 kB.');
  if (status === 415)
    return new ApiError('unsupported-media-type', 'The body encoding or charset is not supported.');
  return unreadableBody('could not be read or decoded as its Content-Encoding says');
};

/** Turns an error of some module (a port, the domain) into its HTTP answer, or says it does not know it. */
export type ErrorMapper = (error: unknown) => ApiError | undefined;

/** Retry-After of 503 storage-unavailable: a full or read-only disk needs an operator, not a quick retry. */
const storageRetryAfterSeconds = 10;

const asApiError = (error: unknown, mappers: readonly ErrorMapper[]): ApiError | undefined => {
  if (error instanceof ApiError) return error;
  for (const map of mappers) {
    const mapped = map(error);
    if (mapped) return mapped;
  }
  if (storageFailureOf(error)) {
    return new ApiError(
      'storage-unavailable',
      'The service cannot write to its storage now, so the request was not completed. Retry later.',
      { headers: { 'Retry-After': String(storageRetryAfterSeconds) } },
    );
  }
  if (error instanceof EventLogUnavailableError) {
    return new ApiError('service-unavailable', 'The service cannot reach its event log now. Retry shortly.', {
      headers: { 'Retry-After': '1' },
    });
  }
  if (isMongoUnreachable(error)) {
    return new ApiError(
      'service-unavailable',
      'The service cannot reach its read store now. Retry shortly.',
      {
        headers: { 'Retry-After': '1' },
      },
    );
  }
  if (error instanceof ConcurrencyExhaustedError) {
    return new ApiError('conflict', 'It is being changed by others right now. Retry.', {
      headers: { 'Retry-After': '1' },
    });
  }
  if (error instanceof InvariantViolationError) {
    return new ApiError('validation-failed', error.message, { extensions: { errors: error.violations } });
  }
  if (typeof error === 'object' && error !== null) return bodyParserProblem(error);
  return undefined;
};

/**
 * What the problems of some paths say beside their kind, whatever raised them (their routes, or the layers
 * before: a malformed body, an undecodable URL): the token endpoints add RFC 6749's error members. `paths`
 * are exact request paths.
 */
export type ProblemDialect = { paths: readonly string[]; refine: (error: ApiError) => ApiError };

/** What an error answers: its problem and headers, and whether it was a known (mapped) error at all. */
export type RenderedProblem = { body: ProblemDetails; headers: Record<string, string>; known: boolean };
export type ProblemRenderer = (error: unknown, path: string) => RenderedProblem;

/** Renders errors as problems: for the error handler, and for whoever must keep an answer (idempotent.ts). */
export const createProblemRenderer =
  (
    { errorTypeBase, realm }: ProblemSettings,
    mappers: readonly ErrorMapper[] = [],
    dialects: readonly ProblemDialect[] = [],
  ): ProblemRenderer =>
  (error, path) => {
    const known = asApiError(error, mappers);
    const dialect = dialects.find(({ paths }) => paths.includes(path));
    const apiError = known && dialect ? dialect.refine(known) : known;
    if (!apiError) {
      return {
        body: problem(errorTypeBase, 'internal', 'The server could not complete the request.', path),
        headers: {},
        known: false,
      };
    }
    const headers = { ...apiError.headers };
    if (apiError instanceof UnauthorizedError) {
      headers['WWW-Authenticate'] = apiError.invalidToken
        ? `Bearer realm="${realm}", error="invalid_token"`
        : `Bearer realm="${realm}"`;
    } else if (apiError.kind === 'forbidden') {
      // RFC 6750, section 3.1: the token is good, but does not carry the rights this request needs.
      headers['WWW-Authenticate'] = `Bearer realm="${realm}", error="insufficient_scope"`;
    }
    return {
      body: problem(errorTypeBase, apiError.kind, apiError.message, path, apiError.extensions),
      headers,
      known: true,
    };
  };

const rendererKey = 'problemRenderer';

/** The app's renderer of problems, for the error handler and for handlers that keep their answers. */
export const useProblemRenderer = (app: Express, render: ProblemRenderer): void => {
  app.locals[rendererKey] = render;
};

/** The problem an error thrown while handling `request` answers, as the error handler sends it. */
export const problemFor = (request: Request, error: unknown): RenderedProblem =>
  (request.app.locals[rendererKey] as ProblemRenderer)(error, request.path);

/** The one place errors become HTTP answers. Route handlers never catch. */
export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (error: unknown, request, response, next) => {
    if (response.headersSent) return next(error);
    const instance = request.path;
    const { body, headers, known } = problemFor(request, error);
    // The request id ties a client's 5xx (it has the X-Request-Id header) to this line.
    const context = {
      err: error,
      method: request.method,
      path: instance,
      requestId: response.locals['requestId'],
    };
    if (!known) {
      logger.error(context, 'request failed');
    } else if (error instanceof EventLogUnavailableError || isMongoUnreachable(error)) {
      logger.error(
        context,
        error instanceof EventLogUnavailableError
          ? 'request failed: event log unreachable'
          : 'request failed: read store unreachable',
      );
    } else if (body.type.endsWith('/storage-unavailable')) {
      // The operator's signal that the disk is full or read-only: the answer itself says only 503.
      logger.error(context, 'request failed: storage unavailable');
    }
    sendProblem(response, body, headers);
  };

export const notFoundHandler =
  (errorTypeBase: string): RequestHandler =>
  (request, response) => {
    sendProblem(
      response,
      problem(errorTypeBase, 'not-found', `No resource at ${request.path}`, request.path),
    );
  };

/** GET {error_type_base}/{kind}: what a problem type means, for humans following the URI. */
export const problemTypeDocs: RequestHandler = (request, response, next) => {
  const kind = request.params['kind'] as string;
  if (!Object.hasOwn(problemKinds, kind)) return next();
  const { status, title, description } = problemKinds[kind as ProblemKind];
  requirePreconditionsWithoutValidators(request);
  response.set('Cache-Control', 'public, max-age=86400').json({ kind, status, title, description });
};
