import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../infrastructure/logging/create-logger.ts';
import { startTestService, type TestService, type TestUser } from '../support/test-service.ts';

type LogLine = Record<string, unknown> & { msg: string };
type Tokens = { access_token: string; refresh_token: string };

const requestLineFields = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'requestId',
  'method',
  'route',
  'path',
  'status',
  'durationMs',
  'userId',
]);

describe('the log: one line per request, and nothing secret or personal', () => {
  const captured: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      captured.push(chunk.toString());
      done();
    },
  });
  let service: TestService;
  let customer: TestUser;
  let admin: TestUser;
  /** Every request the test sent: its own X-Request-Id, and who (if anyone) was signed in. */
  const sent: {
    requestId: string;
    method: string;
    route: string;
    path: string;
    status: number;
    userId?: string;
  }[] = [];
  /** What must never reach the log. */
  const secrets: string[] = [];

  const lines = () => captured.map((line) => JSON.parse(line) as LogLine);
  const send = async (
    method: string,
    path: string,
    { route, userId, ...init }: { route: string; userId?: string } & RequestInit,
  ) => {
    const requestId = `log-test-${randomUUID()}`;
    const response = await fetch(`${service.url}${path}`, {
      ...init,
      method,
      headers: { ...(init.headers as Record<string, string>), 'X-Request-Id': requestId },
    });
    expect(response.headers.get('x-request-id')).toBe(requestId);
    sent.push({
      requestId,
      method,
      route,
      path: path.split('?')[0]!,
      status: response.status,
      ...(userId ? { userId } : {}),
    });
    return response;
  };
  const json = (body: unknown, token?: string) => ({
    headers: {
      'Content-Type': 'application/json',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

  beforeAll(async () => {
    service = await startTestService(
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
      { logger: createLogger({ level: 'info' }, sink) },
    );
    customer = await service.addUser(['customer']);
    admin = await service.addUser(['admin']);
    secrets.push(customer.password, admin.password);
  });
  afterAll(() => service.stop());

  it('logs in, refreshes, orders to an address and manages webhooks without logging a secret', async () => {
    const login = await send('POST', '/auth/token', {
      route: '/auth/token',
      ...json({ grant_type: 'password', username: customer.email, password: customer.password }),
    });
    expect(login.status).toBe(200);
    const first = (await login.json()) as Tokens;

    const formLogin = await send('POST', '/auth/token', {
      route: '/auth/token',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        username: admin.email,
        password: admin.password,
      }).toString(),
    });
    expect(formLogin.status).toBe(200);
    const adminTokens = (await formLogin.json()) as Tokens;

    const wrongPassword = `wrong-${randomUUID()}`;
    const refused = await send('POST', '/auth/token', {
      route: '/auth/token',
      ...json({ grant_type: 'password', username: customer.email, password: wrongPassword }),
    });
    expect(refused.status).toBe(401);
    const brokenBody = `broken-${randomUUID()}`;
    // Refused by the body parser before any route matched.
    const malformed = await send('POST', '/auth/token', {
      route: 'unmatched',
      ...json(`{"grant_type":"password","username":"${customer.email}","password":"${brokenBody}`),
    });
    expect(malformed.status).toBe(400);

    const refresh = await send('POST', '/auth/token/refresh', {
      route: '/auth/token/refresh',
      ...json({ refresh_token: first.refresh_token }),
    });
    expect(refresh.status).toBe(200);
    const tokens = (await refresh.json()) as Tokens;

    const me = await send('GET', '/users/me', {
      route: '/users/me',
      userId: customer.id,
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(me.status).toBe(200);

    const street = `${randomUUID()} Secret Lane`;
    const postalCode = `PC-${randomUUID().slice(0, 8)}`;
    const address = await send('POST', '/users/me/addresses', {
      route: '/users/me/addresses',
      userId: customer.id,
      ...json({ street, city: 'Lyon', postalCode, country: 'FR' }, tokens.access_token),
    });
    expect(address.status).toBe(201);
    const { id: shippingAddressId } = (await address.json()) as { id: string };

    const placed = await send('POST', '/orders', {
      route: '/orders',
      userId: customer.id,
      ...json({ items: [{ productId: '1001', quantity: 1 }], shippingAddressId }, tokens.access_token),
    });
    expect(placed.status).toBe(201);
    const { id: orderId } = (await placed.json()) as { id: string };
    const consistencyToken = placed.headers.get('consistency-token')!;

    const listed = await send('GET', `/orders?status=pending&perPage=7`, {
      route: '/orders',
      userId: customer.id,
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(listed.status).toBe(200);
    // A query string can carry anything: it is not logged, even when the request is refused for it.
    const marked = await send('GET', `/orders?status=pending&marker=${street}`, {
      route: '/orders',
      userId: customer.id,
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(marked.status).toBe(400);
    const read = await send('GET', `/orders/${orderId}`, {
      route: '/orders/:orderId',
      userId: customer.id,
      headers: { Authorization: `Bearer ${tokens.access_token}`, 'Consistency-Token': consistencyToken },
    });
    expect(read.status).toBe(200);

    const registered = await send('POST', '/webhooks', {
      route: '/webhooks',
      userId: admin.id,
      ...json({ url: 'http://127.0.0.1:9/hooks', events: ['order.created'] }, adminTokens.access_token),
    });
    expect(registered.status).toBe(201);
    const subscription = (await registered.json()) as { id: string; secret: string };

    const rotated = await send('POST', `/webhooks/${subscription.id}/rotate-secret`, {
      route: '/webhooks/:subscriptionId/rotate-secret',
      userId: admin.id,
      headers: { Authorization: `Bearer ${adminTokens.access_token}` },
    });
    expect(rotated.status).toBe(200);
    const { secret: rotatedSecret } = (await rotated.json()) as { secret: string };

    secrets.push(
      first.access_token,
      first.refresh_token,
      tokens.access_token,
      tokens.refresh_token,
      adminTokens.access_token,
      adminTokens.refresh_token,
      subscription.secret,
      rotatedSecret,
      wrongPassword,
      brokenBody,
      street,
      postalCode,
    );
    expect(subscription.secret).toMatch(/^whsec_/);
    expect(rotatedSecret).toMatch(/^whsec_/);

    // The line is written when the response ends, which may be just after the client read it.
    await vi.waitFor(
      () => {
        const logged = new Set(lines().map((line) => line['requestId']));
        expect(sent.filter(({ requestId }) => !logged.has(requestId))).toEqual([]);
      },
      { timeout: 5000, interval: 10 },
    );
    const text = captured.join('');
    for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it('wrote exactly one request line per request, carrying its X-Request-Id and nothing else of it', () => {
    expect(sent.length).toBeGreaterThan(10);
    for (const request of sent) {
      const logged = lines().filter((line) => line['requestId'] === request.requestId);
      expect(logged).toHaveLength(1);
      const [line] = logged as [LogLine];
      expect(line).toMatchObject({
        msg: 'request completed',
        method: request.method,
        route: request.route,
        path: request.path,
        status: request.status,
      });
      expect(line['userId']).toBe(request.userId);
      expect(typeof line['durationMs']).toBe('number');
      expect(Object.keys(line).filter((field) => !requestLineFields.has(field))).toEqual([]);
    }
  });
});
