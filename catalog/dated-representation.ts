import type { Request, Response } from 'express';
import {
  httpDate,
  jsonRepresentation,
  sendRepresentation,
  type Representation,
} from '../infrastructure/http/representation.ts';

/**
 * A representation with Last-Modified from a catalogue date. `modifiedAtMs` is kept only when that date
 * was not yet a second in the past as it was built (an import allows a few minutes of clock skew): such a
 * response is sent with a Date of its own and a Last-Modified no later than it.
 */
export type DatedRepresentation = Representation & { modifiedAtMs?: number };

// Date.now, not the service's clock: the Date header Node writes is read from the system clock.
export const datedRepresentation = (
  value: unknown,
  { updatedAt, cacheControl }: { updatedAt: string; cacheControl: string },
): DatedRepresentation => {
  const representation = jsonRepresentation(value, { lastModified: updatedAt, cacheControl });
  const modifiedAtMs = Date.parse(updatedAt);
  return modifiedAtMs > Date.now() - 1000 ? { ...representation, modifiedAtMs } : representation;
};

/** sendRepresentation, with Last-Modified never later than the response's Date. */
export const sendDatedRepresentation = (
  request: Request,
  response: Response,
  representation: DatedRepresentation,
): void => {
  const { modifiedAtMs } = representation;
  const now = Date.now();
  // Node's Date comes from a cache refreshed by a timer: within a second of the change, write both here.
  if (modifiedAtMs === undefined || modifiedAtMs <= now - 1000) {
    sendRepresentation(request, response, representation);
    return;
  }
  response.setHeader('Date', httpDate(new Date(now)));
  sendRepresentation(request, response, {
    ...representation,
    lastModified: httpDate(new Date(Math.min(modifiedAtMs, now))),
  });
};
