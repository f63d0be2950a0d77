import type { Router } from 'express';
import { requirePreconditionsWithoutValidators } from './representation.ts';
import { createRouter } from './router.ts';

/** GET /health: the process is alive and serving HTTP (liveness). */
export const healthRoutes = (): Router => {
  const router = createRouter();
  router.get('/health', (request, response) => {
    requirePreconditionsWithoutValidators(request);
    response.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  return router;
};
