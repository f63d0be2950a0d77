import type { RequestHandler } from 'express';
import { principalOf } from '../infrastructure/auth/authenticate.ts';
import { ApiError, validationFailed } from '../infrastructure/http/api-error.ts';
import type { ConsistencyTokens } from '../infrastructure/http/consistency-tokens.ts';
import type { GlobalPosition } from '../infrastructure/event-store/event-store.ts';
import type { ProjectionProgress } from '../infrastructure/event-sourcing/projection-progress.ts';

export { consistencyTokenFormat } from '../infrastructure/http/consistency-tokens.ts';

/** The one answer to every token that is not the caller's own: it says nothing of the position it names. */
const notYourToken = () =>
  validationFailed([
    {
      field: 'Consistency-Token',
      message: 'must be a Consistency-Token a command response sent you, as sent',
    },
  ]);

/**
 * Read your writes (docs/orders.md, "Read your writes"): a query that sends back the Consistency-Token of
 * a command's answer waits until the read models have reached that position in the log, at most
 * `timeoutMs`; then 503 with Retry-After. Without the header the query answers at once. Runs after
 * authenticate: a token is the caller's own (ConsistencyTokens), or it is answered 400 before anything about
 * the log is looked at, the same whatever position it names, so that no caller learns the log's head by
 * trying positions.
 */
export const readYourWrites =
  (
    progress: ProjectionProgress,
    timeoutMs: number,
    /** The log's last position: a token beyond it was issued by a log that has since lost events. */
    headPosition: () => Promise<GlobalPosition | null>,
    tokens: Pick<ConsistencyTokens, 'positionOf'>,
  ): RequestHandler =>
  async (request, response, next) => {
    const token = request.get('Consistency-Token');
    if (token === undefined) return next();
    const target = tokens.positionOf(token, principalOf(response).userId);
    if (target === null) throw notYourToken();
    const at = progress.position();
    if (at !== null && at >= target) return next();
    // A genuine token beyond the head: the log this service reads is not the one that issued it (restored
    // from a backup, replaced). Waiting would not help; the caller learns only that its own write is gone.
    const head = await headPosition();
    if (head === null || target > head) {
      throw validationFailed([
        {
          field: 'Consistency-Token',
          message: 'names a position the log has not reached: the write it stands for is not in this log',
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
