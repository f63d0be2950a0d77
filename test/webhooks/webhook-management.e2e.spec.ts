import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsServer } from '../support/dns-server.ts';
import { postJson, problemOf } from '../support/http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { webhookAdmin, type AttemptBody, type SubscriptionBody } from '../support/webhooks.ts';

// Webhooks may not reach internal networks here (the default): registrations name hosts that the test's
// own DNS server resolves, to a public address or to an internal one.
describe('webhook management over HTTP', () => {
  let dns: DnsServer;
  let service: TestService;
  let admin: Awaited<ReturnType<typeof webhookAdmin>>;
  const publicUrl = 'https://hooks.shop.test/orders';

  beforeAll(async () => {
    dns = await startDnsServer(
      new Map([
        ['hooks.shop.test', ['93.184.216.34']],
        ['internal.shop.test', ['10.0.0.1']],
      ]),
    );
    service = await startTestService({
      WEBHOOK_DNS_SERVERS: dns.address,
      WEBHOOK_TIMEOUT_MS: '300',
      WEBHOOK_RETRY_SCHEDULE: '0,0',
    });
    admin = await webhookAdmin(service);
  });
  afterAll(async () => {
    await service.stop();
    await dns.stop();
  });

  const listed = async () => (await (await admin.get('/webhooks')).json()) as SubscriptionBody[];

  it('is for admins only', async () => {
    expect((await fetch(`${service.url}/webhooks`)).status).toBe(401);
    for (const role of ['customer', 'staff', 'auditor'] as const) {
      const other = await service.signIn([role]);
      expect((await fetch(`${service.url}/webhooks`, { headers: other.auth })).status).toBe(403);
      const refused = await postJson(
        `${service.url}/webhooks`,
        { url: publicUrl, events: ['order.created'] },
        other.auth,
      );
      expect(refused.status).toBe(403);
    }
  });

  it('registers a subscription, shows its secret once, and never again', async () => {
    const response = await postJson(
      `${service.url}/webhooks`,
      { url: publicUrl, events: ['order.created', 'payment.received'], description: 'ERP' },
      admin.auth,
    );
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const created = (await response.json()) as SubscriptionBody & { secret: string };
    expect(response.headers.get('location')).toBe(`/webhooks/${created.id}`);
    expect(created).toMatchObject({
      url: publicUrl,
      events: ['order.created', 'payment.received'],
      description: 'ERP',
      active: true,
      disabledReason: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const read = await admin.get(`/webhooks/${created.id}`, {
      'Consistency-Token': response.headers.get('consistency-token')!,
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('cache-control')).toBe('private, no-cache');
    const text = await read.text();
    const { secret: _secret, ...withoutSecret } = created;
    // A read adds how its deliveries went: none yet.
    expect(JSON.parse(text)).toEqual({
      ...withoutSecret,
      deliveryStats: { attempts: 0, delivered: 0, successRate: null, lastOutcome: null, lastAttemptAt: null },
    });
    expect(text).not.toContain('secret');
    expect(JSON.stringify(await listed())).not.toContain('secret');

    // The audit trail records the registration, without the secret, sealed or not.
    const auditor = await service.signIn(['auditor']);
    const audit = await (
      await fetch(`${service.url}/audit/events?limit=1000`, { headers: auditor.auth })
    ).text();
    expect(audit).toContain(created.id);
    expect(audit).not.toContain(created.secret.slice(6));
    expect(audit).not.toMatch(/"secret":"v1\./);
  });

  it('refuses a malformed registration with every problem at once, and registers nothing', async () => {
    const before = (await listed()).length;
    const response = await postJson(
      `${service.url}/webhooks`,
      {
        url: 'ftp://hooks.shop.test/x',
        events: ['order.created', 'order.shipped', 'order.created'],
        secret: 'mine',
      },
      admin.auth,
    );
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    const fields = (problem['errors'] as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['events[1]', 'secret']);
    const twice = await postJson(
      `${service.url}/webhooks`,
      { url: publicUrl, events: ['order.created', 'order.created'] },
      admin.auth,
    );
    expect((await problemOf(twice))['errors']).toEqual([
      { field: 'events', message: 'names an event kind more than once' },
    ]);
    const empty = await problemOf(await postJson(`${service.url}/webhooks`, {}, admin.auth));
    expect((empty['errors'] as { field: string }[]).map((e) => e.field).sort()).toEqual(['events', 'url']);
    const scheme = await problemOf(
      await postJson(
        `${service.url}/webhooks`,
        { url: 'ftp://hooks.shop.test/x', events: ['order.created'] },
        admin.auth,
      ),
    );
    expect(scheme['errors']).toEqual([{ field: 'url', message: expect.stringMatching(/http or https/) }]);
    expect(await listed()).toHaveLength(before);
  });

  it.each([
    ['loopback', 'http://127.0.0.1:8080/hooks'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/hooks'],
    ['loopback as one decimal number', 'http://2130706433/hooks'],
    ['loopback in hexadecimal shorthand', 'http://0x7f.1/hooks'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['a host name resolving to a private address', 'https://internal.shop.test/hooks'],
    ['a host name that does not resolve', 'https://nowhere.shop.test/hooks'],
  ])('refuses %s as a webhook target, and registers nothing', async (_what, url) => {
    const before = (await listed()).length;
    const response = await postJson(
      `${service.url}/webhooks`,
      { url, events: ['order.created'] },
      admin.auth,
    );
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem['errors']).toEqual([{ field: 'url', message: expect.any(String) }]);
    expect(await listed()).toHaveLength(before);
  });

  it('changes only what a PATCH names, and checks a new URL like a new registration', async () => {
    const { id } = await admin.register(publicUrl, ['order.created']);
    const changed = await admin.send('PATCH', `/webhooks/${id}`, {
      events: ['order.status_changed'],
      description: 'warehouse',
      active: false,
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      id,
      url: publicUrl,
      events: ['order.status_changed'],
      description: 'warehouse',
      active: false,
    });
    const toLoopback = await admin.send('PATCH', `/webhooks/${id}`, { url: 'http://127.0.0.1/hooks' });
    expect(toLoopback.status).toBe(400);
    const unknownField = await admin.send('PATCH', `/webhooks/${id}`, { secret: 'whsec_mine' });
    expect((await problemOf(unknownField))['errors']).toEqual([
      { field: 'secret', message: 'unknown field' },
    ]);
    const noEvents = await admin.send('PATCH', `/webhooks/${id}`, { events: [] });
    expect(noEvents.status).toBe(400);
    const noChange = await admin.send('PATCH', `/webhooks/${id}`, {});
    expect((await problemOf(noChange))['errors']).toEqual([
      { field: 'body', message: 'name at least one of url, events, description, active' },
    ]);
    const read = await admin.get(`/webhooks/${id}`, {
      'Consistency-Token': changed.headers.get('consistency-token')!,
    });
    expect(await read.json()).toMatchObject({
      url: publicUrl,
      events: ['order.status_changed'],
      active: false,
    });
  });

  it('removes a subscription: 204, then 404 for everything about it', async () => {
    const { id } = await admin.register(publicUrl, ['order.created']);
    const removed = await admin.send('DELETE', `/webhooks/${id}`);
    expect(removed.status).toBe(204);
    const token = removed.headers.get('consistency-token')!;
    expect((await admin.get(`/webhooks/${id}`, { 'Consistency-Token': token })).status).toBe(404);
    expect((await admin.send('DELETE', `/webhooks/${id}`)).status).toBe(404);
    expect((await admin.send('PATCH', `/webhooks/${id}`, { active: true })).status).toBe(404);
    expect((await admin.post(`/webhooks/${id}/rotate-secret`)).status).toBe(404);
    expect((await admin.post(`/webhooks/${id}/test`)).status).toBe(404);
    expect((await admin.get(`/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await listed()).map((s) => s.id)).not.toContain(id);
    expect((await admin.get('/webhooks/not-a-uuid')).status).toBe(404);
  });

  it('lists delivery attempts newest first, in both envelopes, and refuses to retry a delivery it does not have', async () => {
    // Nothing answers at the public address from here: each attempt fails, then the delivery is dead-lettered.
    const { id } = await admin.register(publicUrl, ['payment.received']);
    expect((await admin.post(`/webhooks/${id}/test`)).status).toBe(202);
    await expect.poll(async () => (await admin.attempts(id)).length, { timeout: 10_000 }).toBe(3);
    const attempts = await admin.attempts(id);
    expect(attempts.map((a) => a.attempt)).toEqual([3, 2, 1]);
    expect(attempts[0]).toMatchObject({ eventType: 'webhook.test', deadLettered: true, statusCode: null });

    const page = (await (await admin.get(`/webhooks/${id}/deliveries?page=2&perPage=2`)).json()) as {
      meta: unknown;
      data: AttemptBody[];
    };
    expect(page.meta).toEqual({ total: 3, page: 2, perPage: 2 });
    expect(page.data.map((a) => a.id)).toEqual([attempts[2]!.id]);

    const first = (await (await admin.get(`/webhooks/${id}/deliveries?cursor=&perPage=2`)).json()) as {
      links: { next: string | null; prev: string | null };
      data: AttemptBody[];
    };
    expect(first.data.map((a) => a.id)).toEqual([attempts[0]!.id, attempts[1]!.id]);
    expect(first.links.prev).toBeNull();
    const second = (await (await admin.get(first.links.next!)).json()) as typeof first;
    expect(second.data.map((a) => a.id)).toEqual([attempts[2]!.id]);
    expect(second.links.next).toBeNull();
    const back = (await (await admin.get(second.links.prev!)).json()) as typeof first;
    expect(back.data.map((a) => a.id)).toEqual([attempts[0]!.id, attempts[1]!.id]);

    const idsOf = async (query: string) =>
      (
        (await (await admin.get(`/webhooks/${id}/deliveries?${query}`)).json()) as { data: AttemptBody[] }
      ).data.map((a) => a.id);
    const allIds = attempts.map((a) => a.id);
    const outcome = attempts[0]!.outcome;
    expect(await idsOf(`outcome=${outcome}&eventType=webhook.test`)).toEqual(allIds);
    expect(await idsOf(`cursor=&outcome=${outcome}&perPage=2`)).toEqual(allIds.slice(0, 2));
    expect(await idsOf('outcome=delivered')).toEqual([]);
    expect(await idsOf('eventType=order.shipped')).toEqual([]);
    const filteredFirst = (await (
      await admin.get(`/webhooks/${id}/deliveries?cursor=&eventType=webhook.test&perPage=2`)
    ).json()) as { links: { next: string } };
    expect(filteredFirst.links.next).toContain('eventType=webhook.test');
    expect((await admin.get(`/webhooks/${id}/deliveries?outcome=lost`)).status).toBe(400);

    const bogus = await admin.post(`/webhooks/${id}/deliveries/0b9a2f64-5f55-4c1a-9a53-3c1f0f0e7a11/retry`);
    expect(bogus.status).toBe(404);
    const other = await admin.register(publicUrl, ['payment.received']);
    const elsewhere = await admin.post(`/webhooks/${other.id}/deliveries/${attempts[0]!.deliveryId}/retry`);
    expect(elsewhere.status).toBe(404);
    const badCursor = await admin.get(`/webhooks/${id}/deliveries?cursor=nonsense`);
    expect(badCursor.status).toBe(400);
  });

  it('recovers every dead-lettered delivery since a time, saying how many it scheduled (issue 44)', async () => {
    const { id } = await admin.register(publicUrl, ['payment.received']);
    expect((await admin.post(`/webhooks/${id}/test`)).status).toBe(202);
    await expect
      .poll(async () => (await admin.attempts(id))[0]?.deadLettered, { timeout: 10_000 })
      .toBe(true);
    const recover = async (since: string) => {
      const answer = await admin.post(`/webhooks/${id}/deliveries/recover`, { since });
      return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
    };

    // The service's clock: the deliveries were accepted at its time.
    const now = service.clock.now().getTime();
    const later = new Date(now + 60_000).toISOString();
    expect(await recover(later)).toEqual({
      status: 202,
      body: { subscriptionId: id, since: later, scheduled: 0, more: false, status: 'requested' },
    });
    const anHourAgo = new Date(now - 3_600_000).toISOString();
    // The log shows the last attempt an instant before the retry state settles it dead-lettered.
    await expect
      .poll(async () => (await recover(anHourAgo)).body, { timeout: 5_000 })
      .toMatchObject({ scheduled: 1, more: false });
    // Delivered again as a retry is, numbered on, then dead-lettered again.
    await expect
      .poll(async () => (await admin.attempts(id)).map((a) => a.attempt), { timeout: 10_000 })
      .toEqual([6, 5, 4, 3, 2, 1]);
    expect((await admin.attempts(id))[0]).toMatchObject({ deadLettered: true });

    expect((await recover('yesterday')).status).toBe(400);
    const unknown = await admin.post('/webhooks/0b9a2f64-5f55-4c1a-9a53-3c1f0f0e7a11/deliveries/recover', {
      since: anHourAgo,
    });
    expect(unknown.status).toBe(404);
  });
});
