import type { Request } from 'express';
import { notFound } from './api-error.ts';

const uuidFormat = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID path parameter, lower-cased; anything else names nothing, so answers 404. */
export const uuidParam = (request: Request, name: string, notFoundDetail: string): string => {
  const value = request.params[name];
  if (typeof value !== 'string' || !uuidFormat.test(value)) throw notFound(notFoundDetail);
  return value.toLowerCase();
};
