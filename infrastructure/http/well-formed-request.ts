import type { RequestHandler } from 'express';
import { validationFailed } from './api-error.ts';

/**
 * What HTTP/1.1 requires of a request that Node's parser lets through (RFC 9112, sections 2.3 and 3.2):
 * version 1.0 or 1.1, and exactly one Host header. Anything else is answered 400 here (not 505: a request
 * is never answered 5xx for what the client sent), before any other layer reads it.
 */
export const requireWellFormedRequest: RequestHandler = (request, _response, next) => {
  if (request.httpVersionMajor !== 1 || request.httpVersionMinor > 1) {
    throw validationFailed(
      [{ field: 'version', message: 'must be HTTP/1.1 (or HTTP/1.0)' }],
      'The service speaks HTTP/1.1.',
    );
  }
  let hosts = 0;
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    if (request.rawHeaders[index]!.toLowerCase() === 'host') hosts++;
  }
  if (request.httpVersionMinor === 1 && hosts !== 1) {
    throw validationFailed(
      [{ field: 'Host', message: hosts === 0 ? 'is required' : 'must be sent once' }],
      'An HTTP/1.1 request carries exactly one Host header.',
    );
  }
  next();
};
