import type { RequestHandler } from 'express';
import { validationFailed } from './api-error.ts';

const decodes = (text: string): boolean => {
  // Only a percent-escape can fail to decode.
  if (!text.includes('%')) return true;
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

/**
 * 400 for a path or query string whose percent-escapes do not decode (`%ZZ`, a cut UTF-8 sequence such as
 * `%E0%A4%A`): the request names nothing, and no later layer has to meet it. First of the app's own layers,
 * so that routing, which decodes parameters, never sees one.
 */
export const rejectUndecodableUrl: RequestHandler = (request, _response, next) => {
  const url = request.url;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (!decodes(path)) {
    throw validationFailed(
      [{ field: 'path', message: 'has a percent-escape that does not decode to UTF-8' }],
      'The request path is malformed.',
    );
  }
  if (queryAt !== -1 && !decodes(url.slice(queryAt + 1).replaceAll('+', ' '))) {
    throw validationFailed(
      [{ field: 'query', message: 'has a percent-escape that does not decode to UTF-8' }],
      'The query string is malformed.',
    );
  }
  next();
};
