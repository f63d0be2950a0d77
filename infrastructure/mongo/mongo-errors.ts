import { MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError } from 'mongodb';
import { ApiError } from '../http/api-error.ts';
import type { ErrorMapper } from '../http/problem-details.ts';

/** The driver's ways of saying the server is out of reach now (not that a command was wrong). */
const unreachable = (error: unknown): boolean =>
  error instanceof MongoServerSelectionError ||
  error instanceof MongoNetworkError ||
  error instanceof MongoNotConnectedError;

/**
 * MongoDB out of reach (a replica set electing, the read store restarting, a link down): 503 with
 * Retry-After, as for the event log, not 500. The driver reconnects by itself; a command that met this
 * appended nothing to the log, or its Idempotency-Key replays what it did.
 */
export const mongoUnavailable: ErrorMapper = (error) => {
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++, cause = cause.cause) {
    if (unreachable(cause)) {
      return new ApiError(
        'service-unavailable',
        'The service cannot reach its data store now. Retry shortly.',
        {
          headers: { 'Retry-After': '1' },
        },
      );
    }
  }
  return undefined;
};
