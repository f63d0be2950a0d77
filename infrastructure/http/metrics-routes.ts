import type { Router } from 'express';
import { createRouter } from './router.ts';
import type { Registry } from 'prom-client';

/**
 * GET /metrics: the process's registry in the Prometheus text format. Unauthenticated by decision
 * (README): it carries no personal data, and is kept from the outside by the network, not by a token.
 */
export const metricsRoutes = (registry: Registry): Router => {
  const router = createRouter();
  router.get('/metrics', async (_request, response) => {
    const text = await registry.metrics();
    response.set({ 'Cache-Control': 'no-store', 'Content-Type': registry.contentType }).send(text);
  });
  return router;
};
