import type { Request, RequestHandler, Response } from 'express';

/** Told about each admitted request once its response is done or the client went away. */
export type ResponseObserver = (request: Request, response: Response, durationMs: number) => void;

/** One `close` listener per request, shared by every observer (the log line and the duration sample). */
export const afterResponse =
  (observers: readonly ResponseObserver[]): RequestHandler =>
  (request, response, next) => {
    const started = performance.now();
    response.on('close', () => {
      const durationMs = performance.now() - started;
      for (const observe of observers) observe(request, response, durationMs);
    });
    next();
  };
