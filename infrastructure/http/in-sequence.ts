import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Handlers run one after another as a single layer, as Express would run them as layers of their own, but
 * without its router's per-layer work (path matching, prefix trimming, URL parsing) between them: an
 * error, thrown or passed to `next`, or a rejected promise, goes to the caller's `next`; so does a handler's
 * `next('route')` or `next('router')`, which leaves the sequence.
 */
export const inSequence = (handlers: readonly RequestHandler[]): RequestHandler => {
  if (handlers.length === 1) return handlers[0]!;
  return (request: Request, response: Response, next: NextFunction) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      const handler = handlers[index++];
      if (handler === undefined) return next();
      try {
        const returned: unknown = handler(request, response, step);
        if (returned instanceof Promise)
          returned.catch((failure: unknown) => next(failure ?? new Error('rejected')));
      } catch (failure) {
        next(failure);
      }
    };
    step();
  };
};
