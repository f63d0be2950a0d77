import type { RequestHandler } from 'express';
import { hasBody } from './request-body.ts';
import { ApiError } from './api-error.ts';

const mediaTypes = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  'merge-patch': 'application/merge-patch+json',
} as const;

/**
 * 415 for a body in a media type the operation does not take. A request with no body at all passes, and
 * validation then reports what is missing.
 */
export const acceptBody =
  (...accepted: (keyof typeof mediaTypes)[]): RequestHandler =>
  (request, _response, next) => {
    const types = accepted.map((type) => mediaTypes[type]);
    if (!hasBody(request.headers) || request.is(types)) return next();
    throw new ApiError('unsupported-media-type', `Send the body as ${types.join(' or ')}.`, {
      // RFC 5789, section 3.1: a 415 to a PATCH says which patch documents the resource takes.
      headers: request.method === 'PATCH' ? { 'Accept-Patch': types.join(', ') } : {},
    });
  };
