import { Registry } from 'prom-client';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { recordRequestDuration } from '../../infrastructure/metrics/http-metrics.ts';

const request = (method: string, routePath?: string) =>
  ({ method, baseUrl: '', route: routePath === undefined ? undefined : { path: routePath } }) as Request;
const response = (statusCode: number) => ({ statusCode }) as Response;

describe('http_request_duration_seconds', () => {
  it('counts each request in its bucket and the ones above, by method, route pattern and status', async () => {
    const registry = new Registry();
    const observe = recordRequestDuration(registry);
    observe(request('GET', '/products/:id'), response(200), 0.4);
    observe(request('GET', '/products/:id'), response(200), 3);
    observe(request('GET', '/products/:id'), response(200), 12_000);
    observe(request('GET', '/products/:id'), response(304), 1);
    observe(request('GET'), response(404), 0.2);

    const lines = (await registry.metrics()).split('\n');
    const product200 = 'method="GET",route="/products/:id",status="200"';
    expect(lines).toEqual(
      expect.arrayContaining([
        '# TYPE http_request_duration_seconds histogram',
        `http_request_duration_seconds_bucket{le="0.001",${product200}} 1`,
        `http_request_duration_seconds_bucket{le="0.0025",${product200}} 1`,
        `http_request_duration_seconds_bucket{le="0.005",${product200}} 2`,
        `http_request_duration_seconds_bucket{le="10",${product200}} 2`,
        `http_request_duration_seconds_bucket{le="+Inf",${product200}} 3`,
        `http_request_duration_seconds_sum{${product200}} 12.0034`,
        `http_request_duration_seconds_count{${product200}} 3`,
        // A bound is inclusive: 1 ms is in le="0.001".
        'http_request_duration_seconds_bucket{le="0.001",method="GET",route="/products/:id",status="304"} 1',
        'http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1',
      ]),
    );
  });
});
