import type { RequestHandler } from 'express';
import { hasBody } from './request-body.ts';
import { problem, sendProblem } from './problem-details.ts';

/**
 * A request's body must arrive whole within `timeoutMs` of its headers. A client that stalls (sends headers
 * and part of a body, then nothing) is answered 408 and its connection closed, instead of holding a slot of
 * the in-flight bound until Node's own five-minute request timeout.
 */
export const bodyDeadline =
  ({ timeoutMs, errorTypeBase }: { timeoutMs: number; errorTypeBase: string }): RequestHandler =>
  (request, response, next) => {
    if (request.complete || !hasBody(request.headers)) return next();
    const timer = setTimeout(() => {
      if (request.complete) return;
      const close = () => request.socket.destroy();
      if (response.headersSent) return close();
      response.once('finish', close);
      sendProblem(
        response.set('Connection', 'close'),
        problem(
          errorTypeBase,
          'request-timeout',
          `The request body did not arrive within ${timeoutMs} ms.`,
          request.path,
        ),
      );
    }, timeoutMs);
    const clear = () => clearTimeout(timer);
    request.once('end', clear);
    response.once('close', clear);
    next();
  };
