import type { ErrorRequestHandler, RequestHandler, Response } from 'express';

/** RFC 9457 problem details, as spec section 2.3 lists them; extension members ride along. */
export type ProblemDetails = {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: { field: string; message: string }[];
  [extension: string]: unknown;
};

export const sendProblem = (response: Response, problem: ProblemDetails): void => {
  response.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
};

/** Builds problems whose `type` is `{errorTypeBase}/{kind}` (service spec, section 7). */
export const problemFactory = (errorTypeBase: string) => ({
  problem: (
    kind: string,
    title: string,
    status: number,
    extra: Partial<ProblemDetails> = {},
  ): ProblemDetails => ({
    type: `${errorTypeBase}/${kind}`,
    title,
    status,
    ...extra,
  }),
});

export type Logger = {
  error: (object: Record<string, unknown>, message: string) => void;
};

export const notFoundHandler =
  (errorTypeBase: string): RequestHandler =>
  (request, response) => {
    sendProblem(
      response,
      problemFactory(errorTypeBase).problem('not-found', 'Not Found', 404, {
        detail: `No resource at ${request.path}`,
        instance: request.path,
      }),
    );
  };

/** The last middleware: whatever escaped becomes a 500 problem with no internals; the log gets the error. */
export const errorHandler =
  (errorTypeBase: string, logger: Logger): ErrorRequestHandler =>
  (error: unknown, request, response, next) => {
    if (response.headersSent) return next(error);
    const status = (error as { status?: number; type?: string }).status;
    if (status === 400 && (error as { type?: string }).type === 'entity.parse.failed') {
      return sendProblem(
        response,
        problemFactory(errorTypeBase).problem('validation-failed', 'Bad Request', 400, {
          detail: 'The request body is not valid JSON.',
          instance: request.path,
          errors: [{ field: 'body', message: 'malformed JSON' }],
        }),
      );
    }
    logger.error({ err: error, path: request.path, method: request.method }, 'request failed');
    sendProblem(
      response,
      problemFactory(errorTypeBase).problem('internal', 'Internal Server Error', 500, {
        detail: 'The server could not complete the request.',
        instance: request.path,
      }),
    );
  };
