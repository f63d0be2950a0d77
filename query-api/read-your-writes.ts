import type { RequestHandler } from 'express';
import { ApiError, validationFailed } from '../infrastructure/http/api-error.ts';
import type { GlobalPosition } from '../infrastructure/event-store/event-store.ts';
import type { ProjectionProgress } from '../infrastructure/event-sourcing/projection-progress.ts';

export const consistencyTokenFormat = /^\d{1,40}$/;

/**
 * Read your writes (docs/orders.md): a query that sends back the Consistency-Token of a command's answer
 * waits until the read models have reached that position in the log, at most `timeoutMs`; then 503 with
 * Retry-After. Without the header the query answers at once.
 */
export const readYourWrites =
  (
    progress: ProjectionProgress,
    timeoutMs: number,
    /** The log's last position: a token beyond it was not issued by this service, and never will be reached. */
    headPosition: () => Promise<GlobalPosition | null>,
  ): RequestHandler =>
  async (request, _response, next) => {
    const token = request.get('Consistency-Token');
    if (token === undefined) return next();
    if (!consistencyTokenFormat.test(token.trim())) {
      throw validationFailed([
        { field: 'Consistency-Token', message: 'must be a token from a command response, as sent' },
      ]);
    }
    const target = BigInt(token.trim());
    const at = progress.position();
    if (at !== null && at >= target) return next();
    const head = await headPosition();
    if (head === null || target > head) {
      throw validationFailed([
        {
          field: 'Consistency-Token',
          message: 'names a position the log has not reached: not a token from a command response',
        },
      ]);
    }
    if (!(await progress.waitFor(target, timeoutMs))) {
      throw new ApiError(
        'service-unavailable',
        `The read models have not reached your last write within ${timeoutMs} ms. Retry shortly.`,
        { headers: { 'Retry-After': '1' } },
      );
    }
    next();
  };
