import type { Request, RequestHandler } from 'express';
import type { FieldError } from '../validation/field-errors.ts';
import { validationFailed } from './api-error.ts';

/**
 * Headers that carry one value, whose repeats Node drops silently, keeping the first (its `headers`
 * object); a proxy that keeps the last would act for another caller, body or condition than the service.
 */
const singleValued = ['Host', 'Authorization', 'Content-Type', 'If-Modified-Since', 'If-Unmodified-Since'];

/** RFC 3986's host (an IP literal in brackets, or a name or IPv4 address) and optional port (RFC 9110, 7.2). */
const hostValue = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::(\d{0,5}))?$/;

const countsOf = (request: Request): Map<string, number> => {
  const counts = new Map<string, number>();
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index]!.toLowerCase();
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
};

const hostError = (host: string | undefined): string | null => {
  if (host === undefined) return 'is required';
  const match = hostValue.exec(host);
  if (!match) return 'must be a host name or address, with an optional port';
  if (match[1] !== undefined && match[1] !== '' && Number(match[1]) > 65535)
    return 'must have a port from 0 to 65535';
  return null;
};

/** What is wrong with the request's headers, one field error each. */
const headerErrors = (request: Request): FieldError[] => {
  const counts = countsOf(request);
  const errors: FieldError[] = singleValued
    .filter((name) => (counts.get(name.toLowerCase()) ?? 0) > 1)
    .map((name) => ({ field: name, message: 'must be sent once' }));
  if (request.httpVersionMinor === 1 && !errors.some(({ field }) => field === 'Host')) {
    const host = hostError(request.headers.host);
    if (host) errors.push({ field: 'Host', message: host });
  }
  return errors;
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
