import { Histogram, Registry } from 'prom-client';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { recordRequestDuration } from '../../infrastructure/metrics/http-metrics.ts';

const request = (method: string, routePath?: string) =>
  ({ method, baseUrl: '', route: routePath === undefined ? undefined : { path: routePath } }) as Request;
const response = (statusCode: number) => ({ statusCode }) as Response;

const observations: [Request, Response, number][] = [
  [request('GET', '/products/:id'), response(200), 0.4],
  [request('GET', '/products/:id'), response(200), 3],
  [request('GET', '/products/:id'), response(200), 12_000],
  [request('GET', '/products/:id'), response(304), 1],
  [request('POST', '/orders'), response(201), 7.5],
  [request('GET'), response(404), 0.2],
];

/** The same observations through prom-client's own Histogram, as this project recorded them before. */
const promClientText = async () => {
  const registry = new Registry();
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  for (const [req, res, ms] of observations) {
    const route = req.route === undefined ? 'unmatched' : (req.route as { path: string }).path;
    histogram.observe({ method: req.method, route, status: String(res.statusCode) }, ms / 1000);
  }
  return registry.metrics();
};

describe('http_request_duration_seconds', () => {
  it("writes the text prom-client's Histogram writes for the same requests, line for line", async () => {
    const registry = new Registry();
    const observe = recordRequestDuration(registry);
    for (const [req, res, ms] of observations) observe(req, res, ms);

    const text = await registry.metrics();
    expect(text).toBe(await promClientText());
    // Bounds are inclusive and counts cumulative: 1 ms is in le="0.001"; 12 s only in +Inf.
    const product200 = 'method="GET",route="/products/:id",status="200"';
    expect(text).toContain(`http_request_duration_seconds_bucket{le="0.005",${product200}} 2`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="+Inf",${product200}} 3`);
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.001",method="GET",route="/products/:id",status="304"} 1',
    );
  });

  it('starts again from nothing when the registry is reset', async () => {
    const registry = new Registry();
    const observe = recordRequestDuration(registry);
    observe(request('GET', '/health'), response(200), 1);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('route="/health"');
    observe(request('GET', '/health'), response(200), 1);
    expect(await registry.metrics()).toContain(
      'http_request_duration_seconds_count{method="GET",route="/health",status="200"} 1',
    );
  });
});
