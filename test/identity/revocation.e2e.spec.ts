import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { orderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/** What the product promises: a change to a user reaches every route within this, live tokens included. */
const promisedMs = 5_000;

/**
 * Polls every route in `routes` with the same live token until each answers `status`; how long that took.
 * Fails when any still answers otherwise after the promised delay.
 */
const untilEveryRouteAnswers = async (
  status: number,
  routes: (() => Promise<Response>)[],
): Promise<number> => {
  const started = performance.now();
  const pending = new Set(routes);
  while (pending.size > 0) {
    for (const route of [...pending]) if ((await route()).status === status) pending.delete(route);
    if (pending.size === 0) break;
    if (performance.now() - started > promisedMs) {
      throw new Error(`${pending.size} of ${routes.length} routes still did not answer ${status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return performance.now() - started;
};

describe('a user disabled or stripped of a role, while its access token lives', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  /** One route of each kind, on the command side and the query side, with the same token. */
  const routesOf = (actor: Awaited<ReturnType<typeof orderActor>>) => [
    () => actor.get('/users/me'),
    () => actor.get('/orders'),
    () => actor.get('/webhooks'),
    () => actor.get('/audit/events?limit=1'),
    () => actor.post('/orders', { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: 'x' }),
    () => actor.post('/webhooks', { url: 'https://hooks.shop.example/x', events: ['order.created'] }),
  ];

  it('a disabled admin is refused (401) on every route within 5 s, with the token issued before', async () => {
    const admin = await orderActor(service, ['admin']);
    expect((await admin.get('/webhooks')).status).toBe(200);
    await service.users.setDisabled(admin.id, true);
    const tookMs = await untilEveryRouteAnswers(401, routesOf(admin));
    expect(tookMs).toBeLessThanOrEqual(promisedMs);
    const refused = await admin.get('/users/me');
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer realm="order-service", error="invalid_token"',
    );
    expect(await problemOf(refused)).toMatchObject({ detail: 'The account behind this token is disabled.' });
  });

  it('a disabled user holding every role is refused (401) on every operation of the API document that needs a token, within 5 s', async () => {
    const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: object[]; requestBody?: unknown }>>;
    };
    const everyone = await orderActor(service, ['customer', 'staff', 'auditor', 'admin']);
    // Every path parameter an id that names nothing: the refusal must come before any lookup.
    const secured = Object.entries(document.paths).flatMap(([template, byMethod]) =>
      Object.entries(byMethod)
        .filter(([, operation]) => (operation.security ?? []).length > 0)
        .map(([method, operation]) => {
          const path = template.replace(/\{[^}]+\}/g, () => randomUUID());
          const body = operation.requestBody === undefined ? {} : { body: '{}' };
          return () =>
            fetch(`${service.url}${path}`, {
              method: method.toUpperCase(),
              headers: { ...everyone.auth, 'Content-Type': 'application/json' },
              ...body,
            });
        }),
    );
    expect(secured.length).toBeGreaterThanOrEqual(28);
    expect((await everyone.get('/webhooks')).status).toBe(200);
    await service.users.setDisabled(everyone.id, true);
    expect(await untilEveryRouteAnswers(401, secured)).toBeLessThanOrEqual(promisedMs);
    // Refused because the user is disabled, read behind the token on every route.
    for (const route of secured) {
      expect(await problemOf(await route())).toMatchObject({
        detail: 'The account behind this token is disabled.',
      });
    }
  });

  it('an admin demoted to customer keeps only what a customer may, within 5 s, with the same token', async () => {
    const admin = await orderActor(service, ['admin', 'auditor']);
    expect((await admin.get('/audit/events?limit=1')).status).toBe(200);
    await service.users.setRoles(admin.id, ['customer']);
    const adminOnly = [
      () => admin.get('/webhooks'),
      () => admin.get('/audit/events?limit=1'),
      () => admin.post('/webhooks', { url: 'https://hooks.shop.example/x', events: ['order.created'] }),
    ];
    const tookMs = await untilEveryRouteAnswers(403, adminOnly);
    expect(tookMs).toBeLessThanOrEqual(promisedMs);
    // What the token claimed and the user still holds: nothing, since customer was never in the token.
    expect((await admin.get('/users/me')).status).toBe(403);
    // A new sign-in gets the customer's token, which works as a customer's.
    const tokens = await service.login(admin);
    const me = await fetch(`${service.url}/users/me`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ roles: ['customer'] });
  });

  it('a user enabled again works again with a fresh sign-in, within 5 s', async () => {
    const customer = await orderActor(service, ['customer']);
    await service.users.setDisabled(customer.id, true);
    await untilEveryRouteAnswers(401, [() => customer.get('/users/me')]);
    await service.users.setDisabled(customer.id, false);
    const tokens = await service.login(customer);
    const fresh = () =>
      fetch(`${service.url}/users/me`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(await untilEveryRouteAnswers(200, [fresh])).toBeLessThanOrEqual(promisedMs);
  });
});
