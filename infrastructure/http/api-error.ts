import type { FieldError } from '../validation/field-errors.ts';
import { problemKinds, type ProblemKind } from './problem-kinds.ts';

/**
 * An error that knows its HTTP answer: kind (and so status and title), detail, extension members and
 * headers. Thrown anywhere below a route; the error middleware turns it into problem details.
 */
export class ApiError extends Error {
  readonly kind: ProblemKind;
  readonly status: number;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(
    kind: ProblemKind,
    detail: string,
    options: { extensions?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.kind = kind;
    this.status = problemKinds[kind].status;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }
}

export const validationFailed = (errors: FieldError[], detail = 'The request data is invalid.'): ApiError =>
  new ApiError('validation-failed', detail, { extensions: { errors } });

/**
 * 401. `invalidToken` is false when the request carried no access token at all (none sent, or a token
 * endpoint refusing a password or a refresh token): RFC 6750 section 3.1 then leaves the error attribute out
 * of the challenge. The realm is added by the error middleware.
 */
export class UnauthorizedError extends ApiError {
  readonly invalidToken: boolean;
  constructor(
    detail: string,
    { invalidToken, extensions }: { invalidToken: boolean; extensions?: Record<string, unknown> },
  ) {
    super('unauthorized', detail, extensions ? { extensions } : {});
    this.invalidToken = invalidToken;
  }
}

export const forbidden = (detail = 'Your role does not allow this operation.'): ApiError =>
  new ApiError('forbidden', detail);

export const notFound = (detail: string): ApiError => new ApiError('not-found', detail);

export const rateLimited = (retryAfterSeconds: number): ApiError =>
  new ApiError('rate-limited', `Too many requests. Retry in ${retryAfterSeconds} s.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
