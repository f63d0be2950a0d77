import type { Router } from 'express';
import type { Registry } from 'prom-client';
import { ApiError } from './api-error.ts';
import { peerMetricsReader, type PeerMetrics, type PeerMetricsOptions } from './peer-metrics.ts';
import { requirePreconditionsWithoutValidators } from './representation.ts';
import { createRouter } from './router.ts';

/**
 * GET /metrics: the process's registry in the Prometheus text format. Unauthenticated by decision
 * (README): it carries no personal data, and is kept from the outside by the network, not by a token.
 * Rendering it costs milliseconds and it is never shed, so it is rendered at most `rendersPerSecond` times
 * a second (a scraper asks every few seconds); past that, a request gets the text last rendered, and a
 * flood of them costs next to nothing.
 *
 * GET /metrics?process={name}: the metrics of another process this one was told of (`peers`, see
 * peer-metrics.ts), as that process serves them; 404 for any other name, 503 when that process does not
 * answer as it should. On the same path as the process's own, so whatever keeps /metrics from the outside
 * keeps these too.
 */
export const metricsRoutes = (
  registry: Registry,
  {
    rendersPerSecond = 5,
    now = () => performance.now(),
    peers = {},
    peerOptions = {},
  }: {
    rendersPerSecond?: number;
    now?: () => number;
    peers?: PeerMetrics;
    peerOptions?: PeerMetricsOptions;
  } = {},
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
  const peerReaders = new Map(
    Object.entries(peers).map(([name, url]) => [name, peerMetricsReader(name, url, peerOptions)]),
  );
  router.get('/metrics', async (request, response) => {
    const name = request.query['process'];
    let text: string;
    if (name === undefined) text = await render();
    else {
      const read = typeof name === 'string' ? peerReaders.get(name) : undefined;
      if (!read)
        throw new ApiError('not-found', 'No process of that name reports its metrics through this one.');
      const reading = await read();
      if (!reading.ok)
        throw new ApiError('service-unavailable', reading.detail, { headers: { 'Retry-After': '5' } });
      text = reading.text;
    }
    // Preconditions apply to the 200 only (as on /ready): a 404 or a 503 says what it says whatever was asked.
    requirePreconditionsWithoutValidators(request);
    response.set({ 'Cache-Control': 'no-store', 'Content-Type': registry.contentType }).send(text);
  });
  return router;
};
