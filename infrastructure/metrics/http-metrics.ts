import { Histogram, type Registry } from 'prom-client';
import type { ResponseObserver } from '../http/after-response.ts';
import { routePattern } from '../http/route-pattern.ts';

/** Records every request's duration in http_request_duration_seconds{method, route, status}. */
export const recordRequestDuration = (registry: Registry): ResponseObserver => {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (request, response, durationMs) =>
    duration.observe(
      { method: request.method, route: routePattern(request), status: String(response.statusCode) },
      durationMs / 1000,
    );
};
