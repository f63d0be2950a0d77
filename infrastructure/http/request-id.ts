import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

const acceptable = /^[\w.:-]{1,128}$/;

/** Accepts a sane X-Request-Id from the caller (or makes one), echoes it, and keeps it for logs and events. */
export const requestId: RequestHandler = (request, response, next) => {
  const offered = request.headers['x-request-id'];
  const id = typeof offered === 'string' && acceptable.test(offered) ? offered : randomUUID();
  response.locals['requestId'] = id;
  response.setHeader('X-Request-Id', id);
  next();
};

export const requestIdOf = (response: Response): string => response.locals['requestId'] as string;
