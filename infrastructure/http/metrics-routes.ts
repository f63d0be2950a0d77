import type { Router } from 'express';
import type { Registry } from 'prom-client';
import { requirePreconditionsWithoutValidators } from './representation.ts';
import { createRouter } from './router.ts';

/**
 * GET /metrics: the process's registry in the Prometheus text format. Unauthenticated by decision
 * (README): it carries no personal data, and is kept from the outside by the network, not by a token.
 * Rendering it costs milliseconds and it is never shed, so it is rendered at most `rendersPerSecond` times
 * a second (a scraper asks every few seconds); past that, a request gets the text last rendered, and a
 * flood of them costs next to nothing.
 */
export const metricsRoutes = (
  registry: Registry,
  { rendersPerSecond = 5, now = () => performance.now() } = {},
): Router => {
  const router = createRouter();
  const renderedAt: number[] = [];
  let last: Promise<string> | undefined;
  const render = () => {
    const at = now();
    while (renderedAt.length > 0 && at - renderedAt[0]! >= 1_000) renderedAt.shift();
    if (last && renderedAt.length >= rendersPerSecond) return last;
    renderedAt.push(at);
    const text = registry.metrics();
    last = text;
    text.catch(() => (last = undefined));
    return text;
  };
  router.get('/metrics', async (request, response) => {
    requirePreconditionsWithoutValidators(request);
    const text = await render();
    response.set({ 'Cache-Control': 'no-store', 'Content-Type': registry.contentType }).send(text);
  });
  return router;
};
