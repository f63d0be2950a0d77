import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../query-api/console/console-routes.ts';
import { startTestApp } from '../support/test-app.ts';

type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string };

/**
 * The query API's forward of the console's commands (CONSOLE_COMMAND_API_URL), between a page and a
 * stand-in command API that records what reaches it and answers as the real one would.
 */
describe('the console’s commands, forwarded by the query API to the command API', () => {
  const received: Received[] = [];
  const commandApi = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      if (request.url?.endsWith('/ship')) {
        response
          .writeHead(409, { 'Content-Type': 'application/problem+json', 'X-Internal': 'not forwarded' })
          .end(JSON.stringify({ status: 409, detail: 'You cannot ship a pending order.' }));
        return;
      }
      response
        .writeHead(200, { 'Content-Type': 'application/json', ETag: '"v2"', 'Consistency-Token': '42' })
        .end(JSON.stringify({ id: 'o1', status: 'confirmed' }));
    });
  });
  let app: Awaited<ReturnType<typeof startTestApp>>;
  let unreachable: Awaited<ReturnType<typeof startTestApp>>;
  const orderId = '0198c3a2-5f1e-7c3b-9a41-2b6d8e0f1a2c';

  beforeAll(async () => {
    await new Promise<void>((resolve) => commandApi.listen(0, '127.0.0.1', resolve));
    const { port } = commandApi.address() as AddressInfo;
    app = await startTestApp([consoleRoutes({ commandApiUrl: `http://127.0.0.1:${port}/api/` })]);
    unreachable = await startTestApp([consoleRoutes({ commandApiUrl: 'http://127.0.0.1:9/' })]);
  });
  afterAll(async () => {
    await app?.close();
    await unreachable?.close();
    commandApi.closeAllConnections();
    await new Promise<void>((resolve) => commandApi.close(() => resolve()));
  });

  it('tells the page where its commands go', async () => {
    const page = await (await fetch(`${app.url}/console`)).text();
    expect(page).toContain('<meta name="order-console-command-base" content="/console/command">');
  });

  it('forwards a command with its credentials, precondition and body to the same path, and its answer back', async () => {
    const answer = await fetch(`${app.url}/console/command/orders/${orderId}/payments`, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer token-1',
        'Content-Type': 'application/json',
        'If-Match': '"v1"',
        'X-Request-Id': 'console-req-1',
        Cookie: 'not=forwarded',
      },
      body: JSON.stringify({ amount: { amount: 5, currency: 'EUR' }, reference: 'r1' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).toBe('"v2"');
    expect(answer.headers.get('consistency-token')).toBe('42');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.json()).toEqual({ id: 'o1', status: 'confirmed' });
    const forwarded = received.at(-1)!;
    expect(forwarded).toMatchObject({ method: 'POST', url: `/api/orders/${orderId}/payments` });
    expect(JSON.parse(forwarded.body)).toEqual({ amount: { amount: 5, currency: 'EUR' }, reference: 'r1' });
    expect(forwarded.headers).toMatchObject({
      authorization: 'Bearer token-1',
      'if-match': '"v1"',
      'x-request-id': 'console-req-1',
      'x-forwarded-for': '127.0.0.1',
    });
    expect(forwarded.headers['cookie']).toBeUndefined();
  });

  it('passes a refusal back as the command API gave it, and a command without a body without one', async () => {
    const answer = await fetch(`${app.url}/console/command/orders/${orderId}/ship`, {
      method: 'POST',
      headers: { Authorization: 'Bearer token-1' },
    });
    expect(answer.status).toBe(409);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(answer.headers.get('x-internal')).toBeNull();
    expect(((await answer.json()) as { detail: string }).detail).toBe('You cannot ship a pending order.');
    expect(received.at(-1)!.body).toBe('');
  });

  it('forwards a change of a subscription as PATCH, and its removal as DELETE, its only methods there', async () => {
    const subscriptionId = '0198c3a2-5f1e-7c3b-9a41-2b6d8e0f1a2c';
    await fetch(`${app.url}/console/command/webhooks/${subscriptionId}`, {
      method: 'PATCH',
      headers: { Authorization: 'Bearer token-1', 'Content-Type': 'application/json' },
      body: JSON.stringify({ active: true }),
    });
    const forwarded = received.at(-1)!;
    expect([forwarded.method, forwarded.url, forwarded.body]).toEqual([
      'PATCH',
      `/api/webhooks/${subscriptionId}`,
      '{"active":true}',
    ]);
    const before = received.length;
    const post = await fetch(`${app.url}/console/command/webhooks/${subscriptionId}`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'PATCH, DELETE, OPTIONS']);
    expect(received.length).toBe(before);
  });

  it('answers OPTIONS with 204 and the same Allow as its 405 to any other method, forwarding neither', async () => {
    const before = received.length;
    for (const path of [
      `/orders/${orderId}/confirm`,
      `/orders/${orderId}/payments`,
      '/webhooks/w1/rotate-secret',
      '/webhooks/w1/deliveries/d1/retry',
      '/webhooks/w1/deliveries/recover',
    ]) {
      const options = await fetch(`${app.url}/console/command${path}`, { method: 'OPTIONS' });
      expect(options.status, path).toBe(204);
      expect(options.headers.get('allow'), path).toBe('POST, OPTIONS');
      for (const method of ['GET', 'PUT']) {
        const refused = await fetch(`${app.url}/console/command${path}`, { method });
        expect(refused.status, `${method} ${path}`).toBe(405);
        expect(refused.headers.get('allow'), `${method} ${path}`).toBe('POST, OPTIONS');
      }
    }
    expect((await fetch(`${app.url}/console/command/orders`, { method: 'OPTIONS' })).status).toBe(404);
    expect(received.length).toBe(before);
  });

  it('answers 404 to every method alike for a path it would not forward, an id it does not take included', async () => {
    const before = received.length;
    for (const path of [
      '/orders/bad.id/confirm',
      `/orders/${'x'.repeat(65)}/confirm`,
      '/orders/a%20b/confirm',
      '/webhooks/w1/deliveries/d~1/retry',
      `/orders/${orderId}/refund`,
      `/orders/${orderId}/confirm/`,
    ])
      for (const method of ['OPTIONS', 'POST', 'GET', 'PUT']) {
        const answer = await fetch(`${app.url}/console/command${path}`, { method });
        expect(answer.status, `${method} ${path}`).toBe(404);
        expect(answer.headers.get('allow'), `${method} ${path}`).toBeNull();
      }
    expect(received.length).toBe(before);
  });

  it('forwards only the console’s commands, and says when the command API does not answer', async () => {
    const before = received.length;
    for (const path of ['/orders', `/orders/${orderId}`, `/users/me/addresses`, '/auth/token']) {
      const answer = await fetch(`${app.url}/console/command${path}`, { method: 'POST' });
      expect(answer.status, path).toBe(404);
    }
    expect(received.length).toBe(before);
    const down = await fetch(`${unreachable.url}/console/command/orders/${orderId}/confirm`, {
      method: 'POST',
    });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
  });
});
