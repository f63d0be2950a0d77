import type { Request, RequestHandler } from 'express';
import type { FieldError } from '../validation/field-errors.ts';
import { validationFailed } from './api-error.ts';

/**
 * Headers that carry one value, whose repeats Node drops silently, keeping the first (its `headers`
 * object); a proxy that keeps the last would act for another caller, body or condition than the service.
 */
const singleValued = ['Host', 'Authorization', 'Content-Type', 'If-Modified-Since', 'If-Unmodified-Since'];
const canonicalNames = new Map(singleValued.map((name) => [name.toLowerCase(), name]));
const longestName = Math.max(...singleValued.map((name) => name.length));

/** RFC 3986's host (an IP literal in brackets, or a name or IPv4 address) and optional port (RFC 9110, 7.2). */
const hostValue = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::(\d{0,5}))?$/;

const hostError = (host: string | undefined): string | null => {
  if (host === undefined) return 'is required';
  const match = hostValue.exec(host);
  if (!match) return 'must be a host name or address, with an optional port';
  if (match[1] !== undefined && match[1] !== '' && Number(match[1]) > 65535)
    return 'must have a port from 0 to 65535';
  return null;
};

/** What is wrong with the request's headers, one field error each. On every request: one pass, no map. */
const headerErrors = (request: Request): FieldError[] => {
  const seen: string[] = [];
  const repeated: string[] = [];
  const raw = request.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    // Longer names are none of them: no lower-casing for most headers.
    const name = raw[index]!.length > longestName ? undefined : canonicalNames.get(raw[index]!.toLowerCase());
    if (name === undefined) continue;
    if (!seen.includes(name)) seen.push(name);
    else if (!repeated.includes(name)) repeated.push(name);
  }
  const errors = repeated.map((field) => ({ field, message: 'must be sent once' }));
  const host =
    request.httpVersionMinor === 1 && !repeated.includes('Host') ? hostError(request.headers.host) : null;
  return host === null ? errors : [...errors, { field: 'Host', message: host }];
};

/**
 * What HTTP/1.1 requires of a request that Node's parser lets through (RFC 9112, sections 2.3 and 3.2):
 * version 1.0 or 1.1; exactly one Host header, its value a host and optional port; and no header that
 * carries one value sent twice. Anything else is answered 400 here (not 505: a request is never answered
 * 5xx for what the client sent), before any other layer reads it.
 */
export const requireWellFormedRequest: RequestHandler = (request, _response, next) => {
  if (request.httpVersionMajor !== 1 || request.httpVersionMinor > 1) {
    throw validationFailed(
      [{ field: 'version', message: 'must be HTTP/1.1 (or HTTP/1.0)' }],
      'The service speaks HTTP/1.1.',
    );
  }
  const errors = headerErrors(request);
  if (errors.length > 0) {
    throw validationFailed(
      errors,
      errors.some(({ field }) => field === 'Host')
        ? 'An HTTP/1.1 request carries exactly one Host header, naming the host.'
        : 'A header that carries one value is sent once.',
    );
  }
  next();
};
