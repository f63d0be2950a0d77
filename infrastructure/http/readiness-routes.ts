import type { Router } from 'express';
import { createRouter } from './router.ts';
import type { Readiness } from '../operations/readiness.ts';
import { ApiError } from './api-error.ts';
import { requirePreconditionsWithoutValidators } from './representation.ts';

/** Seconds a load balancer or orchestrator is asked to wait before probing again after a 503. */
const retryAfterSeconds = 5;

/**
 * GET /ready (readiness): 200 when every store the process uses answers and its read models are close
 * enough to the head of the log; otherwise 503 not-ready, with the same `checks` as an extension member.
 * GET /health stays liveness only.
 */
export const readinessRoutes = (readiness: Readiness): Router => {
  const router = createRouter();
  router.get('/ready', async (request, response) => {
    const { ready, checks } = await readiness.check();
    if (!ready) {
      throw new ApiError('not-ready', 'A dependency is unreachable, or the read models trail the log.', {
        extensions: { checks },
        headers: { 'Retry-After': String(retryAfterSeconds), 'Cache-Control': 'no-store' },
      });
    }
    // Preconditions apply to the 200 only: a 503 says what it says whatever the request asked.
    requirePreconditionsWithoutValidators(request);
    response.set('Cache-Control', 'no-store').json({ status: 'ready', checks });
  });
  return router;
};
