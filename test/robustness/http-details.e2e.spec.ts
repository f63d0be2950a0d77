import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { webhookAdmin } from '../support/webhooks.ts';

/** HTTP details a careful client notices (RFC 9110, 6750, 5789). */
describe('HTTP details', () => {
  let service: TestService;
  let customer: OrderActor;
  let orderId: string;

  beforeAll(async () => {
    service = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    customer = await orderActor(service, ['customer']);
    orderId = (await customer.placeOrder()).order.id;
  });
  afterAll(() => service.stop());

  describe('OPTIONS answers 204 with the same Allow as the path’s 405, on every path', () => {
    const paths = () => [
      '/products',
      '/products/1001',
      '/categories',
      '/search',
      '/orders',
      `/orders/${orderId}`,
      `/orders/${orderId}/ship`,
      '/users/me/sessions',
      '/auth/token',
      '/health',
      '/openapi.json',
      '/docs/start.js',
    ];

    /** The console's assets, as its page names them (a version, then a file, in a folder or not). */
    const consoleAssets = async () => {
      const page = await (await fetch(`${service.url}/console`)).text();
      const assets = [...page.matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      expect(assets).toEqual(expect.arrayContaining([expect.stringMatching(/\/vendor\//)]));
      return assets;
    };

    it('for each, with OPTIONS in Allow and nothing cached', async () => {
      for (const path of [...paths(), ...(await consoleAssets())]) {
        const options = await fetch(`${service.url}${path}`, { method: 'OPTIONS' });
        expect(options.status, path).toBe(204);
        const allow = options.headers.get('allow')!;
        expect(allow.split(', '), path).toContain('OPTIONS');
        expect(options.headers.get('cache-control'), path).toBe('no-store');
        const refused = await fetch(`${service.url}${path}`, { method: 'PUT' });
        expect(refused.status, path).toBe(405);
        expect(refused.headers.get('allow'), path).toBe(allow);
      }
    });

    it('a path that serves nothing answers 404 to OPTIONS too', async () => {
      const response = await fetch(`${service.url}/nothing-here`, { method: 'OPTIONS' });
      expect(response.status).toBe(404);
      await problemOf(response);
    });
  });

  describe('If-Match on any GET (RFC 9110, 13.1.1)', () => {
    // The ones without an entity tag of their own too: no tag can match them, only `*`.
    const paths = [
      '/',
      '/products/1001',
      '/openapi.json',
      '/health',
      '/ready',
      '/metrics',
      '/docs',
      '/docs/start.js',
      '/docs/assets/swagger-ui.css',
      '/problems/not-found',
    ];

    it('that names no current version answers 412 problem details', async () => {
      for (const path of paths) {
        const response = await fetch(`${service.url}${path}`, {
          headers: { 'If-Match': '"no-such-version"' },
        });
        expect(response.status, path).toBe(412);
        expect(await problemOf(response), path).toMatchObject({
          status: 412,
          type: 'https://orders.example/problems/precondition-failed',
        });
      }
    });

    it('`*`, or the ETag the resource has, answers 200', async () => {
      for (const path of paths) {
        const plain = await fetch(`${service.url}${path}`);
        expect(plain.status, path).toBe(200);
        const etag = plain.headers.get('etag');
        for (const ifMatch of etag ? ['*', etag] : ['*']) {
          const response = await fetch(`${service.url}${path}`, { headers: { 'If-Match': ifMatch } });
          expect(response.status, `${path} If-Match: ${ifMatch}`).toBe(200);
        }
      }
    });

    it('the reference page and its files answer as any other GET: 304 to their ETag, no body problem for a precondition or a range', async () => {
      for (const path of ['/docs', '/docs/start.js', '/docs/assets/swagger-ui.css']) {
        const { headers } = await fetch(`${service.url}${path}`);
        expect(headers.get('etag'), path).toMatch(/^"/);
        const notModified = await fetch(`${service.url}${path}`, {
          headers: { 'If-None-Match': headers.get('etag')! },
        });
        expect(notModified.status, path).toBe(304);
      }
      const asset = '/docs/assets/swagger-ui.css';
      for (const extra of [
        { 'If-Unmodified-Since': 'Thu, 01 Jan 2015 00:00:00 GMT' },
        { Range: 'bytes=999999999-' },
      ]) {
        const response = await fetch(`${service.url}${asset}`, { headers: extra });
        expect(response.status, JSON.stringify(extra)).toBe(200);
      }
    });
  });

  it('an unknown method answers 501 problem details, never stored (RFC 9110, 9.1); a known one a path lacks, 405', async () => {
    // Each API process directly (distributed: no router in front, whose own parser would refuse FOO).
    for (const origin of service.apiOrigins()) {
      for (const path of ['/products', '/orders', '/nothing-here']) {
        const response = await fetch(`${origin}${path}`, { method: 'FOO' });
        expect(response.status, `${origin} FOO ${path}`).toBe(501);
        expect(response.headers.get('cache-control')).toBe('no-store');
        const problem = await problemOf(response);
        expect(problem).toMatchObject({ status: 501, title: 'Not Implemented' });
        expect(problem.type).toMatch(/\/not-implemented$/);
      }
      const known = await fetch(`${origin}/products`, { method: 'PUT' });
      expect(known.status).toBe(405);
    }
    // The problem type's page says what it means.
    expect((await fetch(`${service.url}/problems/not-implemented`)).status).toBe(200);
  });

  it('sends no Strict-Transport-Security over plain HTTP, whatever PUBLIC_BASE_URL says (RFC 6797, 7.2)', async () => {
    // The test service's PUBLIC_BASE_URL is https://orders.example; this request is plain HTTP, and no
    // proxy is trusted to say otherwise (TRUST_PROXY is false).
    for (const headers of [{}, { 'X-Forwarded-Proto': 'https' }]) {
      for (const path of ['/products', '/orders', '/docs', '/health']) {
        const response = await fetch(`${service.url}${path}`, { headers });
        expect(response.headers.get('strict-transport-security'), path).toBeNull();
        expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      }
    }
  });

  it('a 403 carries WWW-Authenticate with error="insufficient_scope" (RFC 6750, 3.1)', async () => {
    const response = await customer.get('/audit/events');
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="order-service", error="insufficient_scope"',
    );
  });

  describe('PATCH /webhooks/{id}', () => {
    it('takes a JSON merge patch (RFC 7396): null removes the description, absent fields stay', async () => {
      const admin = await webhookAdmin(service);
      const { id } = await admin.register('http://127.0.0.1:9/hooks', ['order.created']);
      const patch = (body: unknown, contentType: string) =>
        fetch(`${service.url}/webhooks/${id}`, {
          method: 'PATCH',
          headers: { ...admin.auth, 'Content-Type': contentType },
          body: JSON.stringify(body),
        });
      const described = await patch({ description: 'ERP' }, 'application/merge-patch+json');
      expect(described.status).toBe(200);
      expect(await described.json()).toMatchObject({ description: 'ERP', events: ['order.created'] });
      const removed = await patch({ description: null }, 'application/merge-patch+json');
      expect(await removed.json()).toMatchObject({ description: null, events: ['order.created'] });
      expect((await patch({ active: false }, 'application/json')).status).toBe(200);
    });

    it('answers 415 with Accept-Patch for another media type', async () => {
      const admin = await webhookAdmin(service);
      const { id } = await admin.register('http://127.0.0.1:9/hooks', ['order.created']);
      const response = await fetch(`${service.url}/webhooks/${id}`, {
        method: 'PATCH',
        headers: { ...admin.auth, 'Content-Type': 'text/plain' },
        body: 'description=ERP',
      });
      expect(response.status).toBe(415);
      expect(response.headers.get('accept-patch')).toBe('application/merge-patch+json, application/json');
    });
  });

  it('an idempotent replay sends its header names as the first answer did', async () => {
    const addressId = await customer.addAddress();
    const body = JSON.stringify({
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: addressId,
    });
    const rawNames = () =>
      new Promise<{ status: number; names: string[] }>((resolve, reject) => {
        const outgoing = httpRequest(`${service.url}/orders`, {
          method: 'POST',
          headers: {
            ...customer.auth,
            'Content-Type': 'application/json',
            'Idempotency-Key': 'replay-names',
          },
        });
        outgoing.on('response', (incoming) => {
          incoming.resume();
          const names = incoming.rawHeaders.filter((_, index) => index % 2 === 0);
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, names }));
        });
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    const first = await rawNames();
    const replay = await rawNames();
    expect([first.status, replay.status]).toEqual([201, 201]);
    const kept = ['Location', 'ETag', 'Last-Modified', 'Consistency-Token'];
    for (const name of kept) {
      expect(first.names, name).toContain(name);
      expect(replay.names, name).toContain(name);
    }
    expect(replay.names).toContain('Idempotent-Replayed');
  });
});

describe('Strict-Transport-Security behind a trusted TLS-terminating proxy', () => {
  let proxied: TestService;
  beforeAll(async () => {
    // The proxy on loopback (in the distributed mode, the method router in front) is trusted.
    proxied = await startTestService({ TRUST_PROXY: 'loopback' });
  });
  afterAll(() => proxied.stop());

  it('is sent when the trusted proxy says X-Forwarded-Proto: https, and only then', async () => {
    for (const path of ['/products/1001', '/orders', '/nothing-here']) {
      const secure = await fetch(`${proxied.url}${path}`, { headers: { 'X-Forwarded-Proto': 'https' } });
      expect(secure.headers.get('strict-transport-security'), path).toBe(
        'max-age=31536000; includeSubDomains',
      );
      for (const headers of [{}, { 'X-Forwarded-Proto': 'http' }]) {
        const plain = await fetch(`${proxied.url}${path}`, { headers });
        expect(plain.headers.get('strict-transport-security'), path).toBeNull();
      }
    }
  });
});
