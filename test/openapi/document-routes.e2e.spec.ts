import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.ts';

type Document = { paths: Record<string, Record<string, unknown>> };

const sampleParams: Record<string, string> = { id: '1001', kind: 'not-found' };

/** A request for each documented operation must reach a route: the document promises nothing that is not there. */
describe('the OpenAPI document against the routes', () => {
  let service: TestService;
  let document: Document;
  let auth: { Authorization: string };

  beforeAll(async () => {
    service = await startTestService();
    document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Document;
    auth = (await service.signIn(['admin', 'staff', 'auditor'])).auth;
  });
  afterAll(() => service.stop());

  it('routes every documented operation (the answer is never "no resource at this path")', async () => {
    const unrouted: string[] = [];
    let checked = 0;
    for (const [template, operations] of Object.entries(document.paths)) {
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => sampleParams[name] ?? randomUUID());
      for (const method of Object.keys(operations)) {
        const response = await fetch(`${service.url}${path}`, {
          method: method.toUpperCase(),
          headers: { ...auth, 'Content-Type': 'application/json' },
          ...(method === 'get' || method === 'delete' ? {} : { body: '{}' }),
        });
        const text = await response.text();
        checked++;
        if (response.status === 404 && text.includes('No resource at'))
          unrouted.push(`${method} ${template}`);
        if (response.status === 405) unrouted.push(`${method} ${template} (405)`);
      }
    }
    process.stdout.write(`[document-routes] ${checked} documented operations requested\n`);
    expect(checked).toBeGreaterThan(30);
    expect(unrouted).toEqual([]);
  });

  it('answers GET / with an index of links, each of which leads somewhere, cacheable for an hour', async () => {
    const index = await fetch(`${service.url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('public, max-age=3600');
    const body = (await index.json()) as { name: string; links: Record<string, string> };
    expect(body.name).toBe('Order and Product Service');
    expect(body.links).toMatchObject({ docs: '/docs', openapi: '/openapi.json', health: '/health' });
    for (const [name, path] of Object.entries(body.links)) {
      const response = await fetch(`${service.url}${path}`, { method: 'HEAD' });
      // POST only for the token endpoint (405 to HEAD); every other link answers HEAD (ready: 200 or 503).
      expect(response.status, name).not.toBe(404);
    }
    const etag = index.headers.get('etag')!;
    expect((await fetch(`${service.url}/`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });

  it('answers a method a documented path does not have with 405 and Allow, and OPTIONS with Allow', async () => {
    const put = await fetch(`${service.url}/orders`, { method: 'PUT', headers: auth });
    expect(put.status).toBe(405);
    const allowed = (response: Response) => response.headers.get('allow')?.split(', ').sort();
    expect(allowed(put)).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
    expect(put.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const options = await fetch(`${service.url}/webhooks/${randomUUID()}`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(allowed(options)).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH']);
  });
});
