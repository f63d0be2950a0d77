import type { RequestHandler } from 'express';
import { ApiError, validationFailed } from '../infrastructure/http/api-error.ts';
import type { ProjectionProgress } from '../projections/projection-progress.ts';

const tokenFormat = /^\d{1,40}$/;

/**
 * Read your writes (decisions.md): a query that sends back the Consistency-Token of a command's answer
 * waits until the read models have reached that position in the log, at most `timeoutMs`; then 503 with
 * Retry-After. Without the header the query answers at once.
 */
export const readYourWrites =
  (progress: ProjectionProgress, timeoutMs: number): RequestHandler =>
  async (request, _response, next) => {
    const token = request.get('Consistency-Token');
    if (token === undefined) return next();
    if (!tokenFormat.test(token.trim())) {
      throw validationFailed([
        { field: 'Consistency-Token', message: 'must be a token from a command response, as sent' },
      ]);
    }
    if (!(await progress.waitFor(BigInt(token.trim()), timeoutMs))) {
      throw new ApiError(
        'service-unavailable',
        `The read models have not reached your last write within ${timeoutMs} ms. Retry shortly.`,
        { headers: { 'Retry-After': '1' } },
      );
    }
    next();
  };
