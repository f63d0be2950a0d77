import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listening } from '../../infrastructure/http/listen.ts';
import { createReadiness, pingCheck } from '../../infrastructure/operations/readiness.ts';
import { problemOf } from '../support/http.ts';
import { startTestApp } from '../support/test-app.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

const contentSecurityPolicy =
  "default-src 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data:;" +
  "connect-src 'self';font-src 'self' data:;object-src 'none';base-uri 'self';form-action 'self';" +
  "frame-ancestors 'self';script-src-attr 'none'";

const expectSecurityHeaders = (headers: Headers) => {
  expect(headers.get('content-security-policy')).toBe(contentSecurityPolicy);
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('x-frame-options')).toBe('SAMEORIGIN');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  // Over plain HTTP, as these requests are: only a request that came over TLS gets it (security-headers.ts).
  expect(headers.get('strict-transport-security')).toBeNull();
  expect(headers.get('cross-origin-opener-policy')).toBe('same-origin');
  expect(headers.get('x-powered-by')).toBeNull();
};

describe('GET /ready and GET /health of the embedded default', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('is ready once its stores answer and its read models are at the head of the log', async () => {
    const response = await fetch(`${service.url}/ready`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      status: 'ready',
      checks: {
        eventLog: { status: 'ok' },
        readStore: { status: 'ok' },
        dataDir: { status: 'ok' },
        projections: {
          status: 'ok',
          detail: 'events behind the log head: orders 0, webhook-subscriptions 0',
        },
      },
    });
  });

  it('keeps /health a liveness probe', async () => {
    const response = await fetch(`${service.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('adds the security headers and leaves the caching headers as they were', async () => {
    const response = await fetch(`${service.url}/products/1001`);
    expect(response.status).toBe(200);
    expectSecurityHeaders(response.headers);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300, s-maxage=300');
    expect(response.headers.get('etag')).toMatch(/^"/);
    expect(response.headers.get('vary')).toBeNull();
    expect(response.headers.get('pragma')).toBeNull();
  });
});

describe('the shared HTTP stack: readiness problems and security headers', () => {
  let app: Listening;
  let storeUp = false;
  beforeAll(async () => {
    const router = Router();
    router.get('/thing', (_request, response) => {
      response.json({ thing: true });
    });
    const readiness = createReadiness({
      timeoutMs: 1000,
      checks: {
        eventLog: pingCheck(async () => undefined),
        mongodb: pingCheck(async () => {
          if (!storeUp) throw new Error('connect to mongodb://admin:s3cret@db:27017 refused');
        }),
      },
    });
    app = await startTestApp([router], { readiness });
  });
  afterAll(() => app.close());

  it('answers 503 not-ready with Retry-After and each check while a store does not answer', async () => {
    storeUp = false;
    const response = await fetch(`${app.url}/ready`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const problem = await problemOf(response);
    expect(problem).toEqual({
      type: 'https://orders.example/problems/not-ready',
      title: 'Service Unavailable',
      status: 503,
      detail: 'A dependency is unreachable, or the read models trail the log.',
      instance: '/ready',
      checks: {
        eventLog: { status: 'ok' },
        mongodb: { status: 'failing', detail: 'the check failed (Error)' },
      },
    });
    expect(JSON.stringify(problem)).not.toContain('s3cret');

    storeUp = true;
    const ready = await fetch(`${app.url}/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe('ready');
  });

  it('documents the not-ready problem type at its URI', async () => {
    const response = await fetch(`${app.url}/problems/not-ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      kind: 'not-ready',
      status: 503,
      title: 'Service Unavailable',
    });
  });

  it('sends the security headers on a JSON answer, and sets no caching header of its own', async () => {
    const response = await fetch(`${app.url}/thing`);
    expect(response.status).toBe(200);
    expectSecurityHeaders(response.headers);
    for (const header of ['cache-control', 'pragma', 'etag', 'vary', 'expires', 'surrogate-control']) {
      expect(response.headers.get(header)).toBeNull();
    }
  });

  it('sends them on a problem too', async () => {
    const response = await fetch(`${app.url}/no-such-thing`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expectSecurityHeaders(response.headers);
  });
});
