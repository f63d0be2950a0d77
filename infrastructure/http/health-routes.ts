import { Router } from 'express';

/** GET /health: the process is alive and serving HTTP (liveness). */
export const healthRoutes = (): Router => {
  const router = Router();
  router.get('/health', (_request, response) => {
    response.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  return router;
};
