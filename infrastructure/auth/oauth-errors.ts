import { ApiError, UnauthorizedError } from '../http/api-error.ts';
import type { ProblemDialect } from '../http/problem-details.ts';
import type { FieldError } from '../validation/field-errors.ts';

/** The error codes of RFC 6749, section 5.2, that the token endpoints answer. */
export const oauthErrorCodes = ['invalid_request', 'invalid_grant', 'unsupported_grant_type'] as const;
export type OAuthErrorCode = (typeof oauthErrorCodes)[number];

/** The paths whose problems carry RFC 6749's error members (RFC 7009, section 2.2.1, for revocation). */
export const tokenEndpointPaths = ['/auth/token', '/auth/token/refresh', '/auth/revoke'] as const;

/**
 * RFC 6749 allows error_description only the printable ASCII characters but `"` and `\`: anything else
 * becomes a space, or `'` for a double quote.
 */
const asDescription = (text: string): string =>
  text.replaceAll('"', "'").replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, ' ');

/** The extension members a token endpoint's problem carries: `error` and `error_description`. */
export const oauthMembers = (error: OAuthErrorCode, description: string) => ({
  error,
  error_description: asDescription(description),
});

/**
 * 401 invalid_grant: a wrong username or password, or a refresh token that is not (or no longer) good. No
 * access token was presented, so the challenge carries no error attribute.
 */
export const invalidGrant = (detail: string): UnauthorizedError =>
  new UnauthorizedError(detail, { invalidToken: false, extensions: oauthMembers('invalid_grant', detail) });

/** 400 unsupported_grant_type: a grant_type this endpoint does not take (errors names the field). */
export const unsupportedGrantType = (errors: FieldError[], detail: string): ApiError =>
  new ApiError('validation-failed', detail, {
    extensions: { errors, ...oauthMembers('unsupported_grant_type', detail) },
  });

/** The detail, and the fields that failed: what a client log shows of an invalid_request. */
const descriptionOf = (error: ApiError): string => {
  const errors = error.extensions['errors'];
  if (!Array.isArray(errors) || errors.length === 0) return error.message;
  const fields = (errors as FieldError[]).map(({ field, message }) => `${field}: ${message}`);
  return `${error.message} ${fields.join('; ')}.`;
};

/**
 * Every 400 of the token endpoints that does not name its OAuth error already is invalid_request (RFC 6749,
 * section 5.2): a parameter missing or invalid, a body that does not parse or decode.
 */
export const tokenEndpointProblems: ProblemDialect = {
  paths: tokenEndpointPaths,
  refine: (error) => {
    if (error.kind !== 'validation-failed' || 'error' in error.extensions) return error;
    return new ApiError(error.kind, error.message, {
      extensions: { ...error.extensions, ...oauthMembers('invalid_request', descriptionOf(error)) },
      headers: error.headers,
    });
  },
};
