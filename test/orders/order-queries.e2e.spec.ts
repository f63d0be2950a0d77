import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventLog } from '../../infrastructure/event-store/open-event-log.ts';
import { consistencyTokenFor, positionOfToken } from '../support/consistency-tokens.ts';
import { anEvent } from '../support/events.ts';
import { problemOf } from '../support/http.ts';
import { orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let alice: OrderActor;
let bob: OrderActor;
let staff: OrderActor;
let auditor: OrderActor;
let admin: OrderActor;
/** Alice's orders, newest first, and where the log stood after the last. */
const aliceOrders: OrderBody[] = [];
let lastPosition = 0n;
/**
 * Where the log stood after the last write, as a Consistency-Token of `reader`'s: the writes were alice's
 * and staff's, and a token works for the caller it was issued to only.
 */
const lastTokenOf = (reader: { id: string }) => consistencyTokenFor(service, lastPosition, reader.id);

type Page = { meta: { total: number; page: number; perPage: number }; data: OrderBody[] };
type CursorPage = {
  meta: { perPage: number };
  links: { next: string | null; prev: string | null };
  data: OrderBody[];
};

beforeAll(async () => {
  service = await startTestService();
  [alice, bob, staff, auditor, admin] = await Promise.all([
    orderActor(service, ['customer']),
    orderActor(service, ['customer']),
    orderActor(service, ['staff']),
    orderActor(service, ['auditor']),
    orderActor(service, ['admin']),
  ]);
  for (let index = 0; index < 7; index++) {
    await service.clock.advance(1000);
    const placed = await alice.placeOrder([{ productId: String(1001 + index), quantity: 1 }]);
    aliceOrders.unshift(placed.order);
    lastPosition = positionOfToken(placed.consistencyToken);
  }
  await service.clock.advance(1000);
  await bob.placeOrder();
  const confirmed = await staff.post(`/orders/${aliceOrders[0]!.id}/confirm`);
  lastPosition = positionOfToken(confirmed.headers.get('consistency-token')!);
  aliceOrders[0] = (await confirmed.json()) as OrderBody;
});
afterAll(async () => service.stop());

describe('GET /orders/{id}', () => {
  it('answers the owner, staff, auditor and admin with the order, private and no-cache, with a strong ETag', async () => {
    const order = aliceOrders[0]!;
    // Each with what it may do to the confirmed order now: the representation, and so its ETag, is the reader's.
    const actionsOf = new Map([
      [alice, ['cancel']],
      [staff, ['ship', 'record-payment', 'cancel']],
      [auditor, []],
      [admin, ['ship', 'record-payment', 'cancel']],
    ]);
    const etags = new Map<unknown, string>();
    for (const [reader, actions] of actionsOf) {
      const response = await reader.get(`/orders/${order.id}`, { 'Consistency-Token': lastTokenOf(reader) });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('private, no-cache');
      expect(response.headers.get('etag')).toMatch(/^"[\w-]+"$/);
      expect(await response.json()).toEqual({ ...order, actions });
      etags.set(reader, response.headers.get('etag')!);
    }
    expect(etags.get(staff)).toBe(etags.get(admin));
    expect(new Set([etags.get(alice), etags.get(staff), etags.get(auditor)]).size).toBe(3);
  });

  it("answers 404 to another customer's order, to an unknown id and to an id that is not a UUID", async () => {
    const foreign = await bob.get(`/orders/${aliceOrders[0]!.id}`);
    expect(foreign.status).toBe(404);
    expect((await problemOf(foreign)).detail).toBe('There is no order with this id.');
    expect((await alice.get('/orders/6f1c1d9e-7c43-4a38-9f57-3c4b8f3d2a11')).status).toBe(404);
    expect((await alice.get('/orders/not-an-id')).status).toBe(404);
  });

  it('answers 412 to If-Match or If-Unmodified-Since that does not hold, 200 to one that does', async () => {
    const path = `/orders/${aliceOrders[0]!.id}`;
    const current = await alice.get(path);
    const etag = current.headers.get('etag')!;
    const lastModified = current.headers.get('last-modified')!;
    const stale = await alice.get(path, { 'If-Match': '"not-this-one"' });
    expect(stale.status).toBe(412);
    expect((await problemOf(stale)).type).toBe('https://orders.example/problems/precondition-failed');
    expect((await alice.get(path, { 'If-Match': etag })).status).toBe(200);
    expect((await alice.get(path, { 'If-Match': '*' })).status).toBe(200);
    const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
    expect((await alice.get(path, { 'If-Unmodified-Since': earlier })).status).toBe(412);
    expect((await alice.get(path, { 'If-Unmodified-Since': lastModified })).status).toBe(200);
  });

  it('answers 304 to If-None-Match with the current ETag, repeating the validators', async () => {
    const first = await alice.get(`/orders/${aliceOrders[1]!.id}`, {
      'Consistency-Token': lastTokenOf(alice),
    });
    const etag = first.headers.get('etag')!;
    const again = await alice.get(`/orders/${aliceOrders[1]!.id}`, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('private, no-cache');
    expect(await again.text()).toBe('');
  });

  it('gives staff and auditors the state after event N with ?revision=N; customers get 403', async () => {
    const order = aliceOrders[0]!;
    const atPlacement = await auditor.get(`/orders/${order.id}?revision=0`);
    expect(atPlacement.status).toBe(200);
    expect(await atPlacement.json()).toMatchObject({ status: 'pending', id: order.id });
    // A past state, which nothing can be done to: the order without `actions`.
    const atConfirmation = await staff.get(`/orders/${order.id}?revision=1`);
    const { actions: _actions, ...asConfirmed } = order as OrderBody & { actions: unknown };
    expect(await atConfirmation.json()).toEqual(asConfirmed);
    expect((await auditor.get(`/orders/${order.id}?revision=2`)).status).toBe(404);
    const bad = await auditor.get(`/orders/${order.id}?revision=-1`);
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).errors?.[0]?.field).toBe('revision');
    expect((await alice.get(`/orders/${order.id}?revision=0`)).status).toBe(403);
  });
});

describe('GET /orders/{id}/events', () => {
  it("lists the order's events oldest first; the owner sees the staff's roles, not their user id", async () => {
    const order = aliceOrders[0]!;
    const asAuditor = (await (await auditor.get(`/orders/${order.id}/events`)).json()) as {
      type: string;
      revision: number;
      actor: { userId?: string; roles: string[] };
    }[];
    expect(asAuditor.map((event) => [event.revision, event.type])).toEqual([
      [0, 'OrderPlaced'],
      [1, 'OrderConfirmed'],
    ]);
    expect(asAuditor[1]!.actor).toEqual({ userId: staff.id, roles: ['staff'] });
    const asOwner = (await (await alice.get(`/orders/${order.id}/events`)).json()) as typeof asAuditor;
    expect(asOwner[0]!.actor).toEqual({ userId: alice.id, roles: ['customer'] });
    expect(asOwner[1]!.actor).toEqual({ roles: ['staff'] });
    expect((await bob.get(`/orders/${order.id}/events`)).status).toBe(404);
  });
});

describe('GET /orders, found by short id, by customer e-mail and by total', () => {
  const ids = (page: Page) => page.data.map((order) => order.id);

  it('finds an order by its id’s last 8 hex digits (any case), for staff; a customer only among its own', async () => {
    const wanted = aliceOrders[2]!;
    const shortId = wanted.id.slice(-8).toUpperCase();
    const asStaff = await staff.get(`/orders?page=1&idEndsWith=${shortId}`, {
      'Consistency-Token': lastTokenOf(staff),
    });
    expect(asStaff.status).toBe(200);
    expect(ids((await asStaff.json()) as Page)).toEqual([wanted.id]);
    expect(ids((await (await alice.get(`/orders?page=1&idEndsWith=${shortId}`)).json()) as Page)).toEqual([
      wanted.id,
    ]);
    expect(ids((await (await bob.get(`/orders?page=1&idEndsWith=${shortId}`)).json()) as Page)).toEqual([]);
    const bad = await staff.get('/orders?idEndsWith=xyz');
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).errors?.[0]?.field).toBe('idEndsWith');
  });

  it('keeps to the orders placed in a span of time, given as dates or times; 400 to another form', async () => {
    // Alice's seven orders were placed a second apart, the oldest last in aliceOrders.
    const from = aliceOrders[4]!.createdAt;
    const before = aliceOrders[1]!.createdAt;
    const page = (await (
      await alice.get(`/orders?page=1&placedFrom=${from}&placedBefore=${before}`, {
        'Consistency-Token': lastTokenOf(alice),
      })
    ).json()) as Page;
    expect(ids(page)).toEqual(aliceOrders.slice(2, 5).map((order) => order.id));
    const day = from.slice(0, 10);
    const wholeDay = (await (await alice.get(`/orders?page=1&placedFrom=${day}`)).json()) as Page;
    expect(wholeDay.meta.total).toBe(7);
    const bad = await alice.get('/orders?placedFrom=yesterday');
    expect((await problemOf(bad)).errors?.[0]?.field).toBe('placedFrom');
  });

  it('keeps to the orders whose total is within bounds, inclusive, in EUR decimals; carries them in the links', async () => {
    // Alice's seven orders are one each of seven products: their totals take three amounts at least.
    const amounts = [...new Set(aliceOrders.map((order) => order.total.amount))].sort((a, b) => a - b);
    expect(amounts.length).toBeGreaterThanOrEqual(3);
    const middle = amounts[1]!;
    const within = (low: number, high: number) =>
      aliceOrders
        .filter((order) => order.total.amount >= low && order.total.amount <= high)
        .map((order) => order.id);
    // Inclusive at both ends: the middle amount alone, neither the cheaper nor the dearer orders.
    const page = (await (
      await staff.get(`/orders?page=1&minTotal=${middle}&maxTotal=${middle}`, {
        'Consistency-Token': lastTokenOf(staff),
      })
    ).json()) as Page;
    expect(ids(page)).toEqual(within(middle, middle));
    expect(page.meta.total).toBe(within(middle, middle).length);
    expect(page.data.every((order) => order.total.currency === 'EUR')).toBe(true);
    // A cursor's links keep the bounds.
    const dearer = within(middle, Infinity);
    expect(dearer.length).toBeGreaterThanOrEqual(2);
    const first = (await (
      await alice.get(`/orders?cursor=&perPage=1&minTotal=${middle}`)
    ).json()) as CursorPage;
    expect(first.data.map((order) => order.id)).toEqual(dearer.slice(0, 1));
    expect(first.links.next).toContain(`minTotal=${middle}`);
    const second = (await (await alice.get(first.links.next!)).json()) as CursorPage;
    expect(second.data.map((order) => order.id)).toEqual(dearer.slice(1, 2));
    const cheaper = (await (await alice.get(`/orders?page=1&maxTotal=${middle}`)).json()) as Page;
    expect(ids(cheaper)).toEqual(within(0, middle));
    // Bob sees only his own, whatever the bounds.
    const bobs = (await (await bob.get('/orders?page=1&minTotal=0')).json()) as Page;
    expect(bobs.data.every((order) => order.customerId === bob.id)).toBe(true);
    expect(bobs.meta.total).toBe(1);
    // An amount that is not one, a cent's fraction, or bounds the wrong way round: 400 on the bound.
    for (const [query, field] of [
      ['minTotal=cheap', 'minTotal'],
      ['maxTotal=-5', 'maxTotal'],
      ['minTotal=1.234', 'minTotal'],
      // Read digit by digit: a float would round the third decimal of a large amount away.
      ['maxTotal=947573176605.759', 'maxTotal'],
      ['minTotal=1.000', 'minTotal'],
      [`minTotal=${amounts[2]}&maxTotal=${middle}`, 'minTotal'],
    ] as const) {
      const refused = await staff.get(`/orders?${query}`);
      expect(refused.status, query).toBe(400);
      expect(
        (await problemOf(refused)).errors?.map((error) => error.field),
        query,
      ).toEqual([field]);
    }
    const repeated = await staff.get('/orders?minTotal=1&minTotal=2');
    expect((await problemOf(repeated)).errors).toEqual([
      { field: 'minTotal', message: 'must be given once' },
    ]);
  });

  it('names the customer of each listed order, by id, with its name and e-mail; a customer reads only itself', async () => {
    type Named = { data: OrderBody[]; customers: Record<string, { name: string; email: string }> };
    const asStaff = (await (await staff.get('/orders?cursor=&perPage=100')).json()) as Named;
    const listed = new Set(asStaff.data.map((order) => order.customerId));
    expect(listed).toEqual(new Set([alice.id, bob.id]));
    expect(asStaff.customers).toEqual({
      [alice.id]: { name: 'Test customer', email: alice.email },
      [bob.id]: { name: 'Test customer', email: bob.email },
    });
    const asAlice = (await (await alice.get('/orders?page=1&perPage=2')).json()) as Named;
    expect(asAlice.customers).toEqual({ [alice.id]: { name: 'Test customer', email: alice.email } });
  });

  it('lists a customer’s orders by its e-mail (any case) for staff, and carries the filter in the links', async () => {
    const byEmail = await staff.get(
      `/orders?cursor=&perPage=5&customerEmail=${encodeURIComponent(alice.email.toUpperCase())}`,
    );
    expect(byEmail.status).toBe(200);
    const first = (await byEmail.json()) as CursorPage;
    expect(first.data.map((order) => order.id)).toEqual(aliceOrders.slice(0, 5).map((order) => order.id));
    expect(first.links.next).toContain(`customerEmail=${encodeURIComponent(alice.email)}`);
    const rest = (await (await staff.get(first.links.next!)).json()) as CursorPage;
    expect(rest.data.map((order) => order.id)).toEqual(aliceOrders.slice(5).map((order) => order.id));
    // Nobody's address, and another's for a customer: no orders, not an error.
    expect(
      ids((await (await staff.get('/orders?page=1&customerEmail=nobody%40shop.example')).json()) as Page),
    ).toEqual([]);
    expect(
      ids(
        (await (
          await bob.get(`/orders?page=1&customerEmail=${encodeURIComponent(alice.email)}`)
        ).json()) as Page,
      ),
    ).toEqual([]);
    expect((await staff.get('/orders?customerEmail=not-an-address')).status).toBe(400);
  });
});

describe('GET /orders, page variant', () => {
  it('gives a customer only its own orders, newest first, with total, page and perPage', async () => {
    const first = await alice.get('/orders?page=1&perPage=3', { 'Consistency-Token': lastTokenOf(alice) });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const page = (await first.json()) as Page;
    expect(page.meta).toEqual({ total: 7, page: 1, perPage: 3 });
    expect(page.data.map((order) => order.id)).toEqual(aliceOrders.slice(0, 3).map((order) => order.id));
    const third = (await (await alice.get('/orders?page=3&perPage=3')).json()) as Page;
    expect(third.data.map((order) => order.id)).toEqual([aliceOrders[6]!.id]);
    const beyond = (await (await alice.get('/orders?page=9&perPage=3')).json()) as Page;
    expect(beyond).toEqual({ meta: { total: 7, page: 9, perPage: 3 }, data: [], customers: {} });
  });

  it('gives staff every order, filters by status, and defaults to page 1 of 20', async () => {
    const all = (await (await staff.get('/orders')).json()) as Page;
    expect(all.meta).toEqual({ total: 8, page: 1, perPage: 20 });
    const confirmed = (await (await auditor.get('/orders?status=confirmed')).json()) as Page;
    expect(confirmed.data.map((order) => order.id)).toEqual([aliceOrders[0]!.id]);
  });

  it('refuses bad paging and filters with a 400 naming each parameter', async () => {
    const response = await alice.get('/orders?page=0&perPage=101&status=lost');
    expect(response.status).toBe(400);
    expect((await problemOf(response)).errors?.map((error) => error.field).sort()).toEqual([
      'page',
      'perPage',
      'status',
    ]);
    const both = await alice.get('/orders?page=1&cursor=');
    expect((await problemOf(both)).errors).toEqual([
      { field: 'cursor', message: 'use either page or cursor, not both' },
    ]);
    const forged = await alice.get('/orders?cursor=bm90LWEtY3Vyc29y');
    expect((await problemOf(forged)).errors?.[0]?.field).toBe('cursor');
  });
});

describe('GET /orders, cursor variant', () => {
  it('walks next to the end and prev back to the start, links null at either end', async () => {
    const seen: string[] = [];
    let link: string | null = '/orders?cursor=&perPage=3';
    const pages: CursorPage[] = [];
    while (link) {
      const page = (await (await alice.get(link)).json()) as CursorPage;
      pages.push(page);
      seen.push(...page.data.map((order) => order.id));
      link = page.links.next;
    }
    expect(seen).toEqual(aliceOrders.map((order) => order.id));
    expect(pages[0]!.links.prev).toBeNull();
    expect(pages.at(-1)!.links.next).toBeNull();
    expect(pages[0]!.meta).toEqual({ perPage: 3 });

    const back = (await (await alice.get(pages.at(-1)!.links.prev!)).json()) as CursorPage;
    expect(back.data.map((order) => order.id)).toEqual(pages[1]!.data.map((order) => order.id));
    const start = (await (await alice.get(back.links.prev!)).json()) as CursorPage;
    expect(start.data.map((order) => order.id)).toEqual(pages[0]!.data.map((order) => order.id));
    expect(start.links.prev).toBeNull();
  });

  it('stays stable under concurrent inserts: a new order does not shift the page a cursor points to', async () => {
    const first = (await (await alice.get('/orders?cursor=&perPage=3')).json()) as CursorPage;
    await service.clock.advance(1000);
    const { consistencyToken } = await alice.placeOrder();
    const second = (await (
      await alice.get(first.links.next!, { 'Consistency-Token': consistencyToken })
    ).json()) as CursorPage;
    expect(second.data.map((order) => order.id)).toEqual(aliceOrders.slice(3, 6).map((order) => order.id));
  });

  it('keeps the status filter in its links', async () => {
    const page = (await (await staff.get('/orders?cursor=&perPage=1&status=pending')).json()) as CursorPage;
    expect(page.links.next).toContain('status=pending');
    const next = (await (await staff.get(page.links.next!)).json()) as CursorPage;
    expect(next.data.every((order) => order.status === 'pending')).toBe(true);
  });
});

describe('GET /audit/events', () => {
  type AuditPage = {
    meta: { perPage: number };
    links: { next: string | null; prev: string | null };
    data: { position: string; type: string; streamId: string }[];
  };

  it('pages the whole log in log order for auditors and admins, forward and back', async () => {
    const all: AuditPage['data'] = [];
    let link: string | null = '/audit/events?limit=4';
    let pages = 0;
    while (link) {
      const response = await auditor.get(link);
      expect(response.headers.get('cache-control')).toBe('private, no-cache');
      const page = (await response.json()) as AuditPage;
      all.push(...page.data);
      link = page.links.next;
      pages++;
    }
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(pages).toBe(Math.ceil(all.length / 4));
    const positions = all.map((event) => BigInt(event.position));
    expect(positions.every((position, index) => index === 0 || position > positions[index - 1]!)).toBe(true);

    const second = (await (
      await admin.get(`/audit/events?after=${all[3]!.position}&limit=4`)
    ).json()) as AuditPage;
    expect(second.data.map((event) => event.position)).toEqual(
      all.slice(4, 8).map((event) => event.position),
    );
    const back = (await (await admin.get(second.links.prev!)).json()) as AuditPage;
    expect(back.data.map((event) => event.position)).toEqual(all.slice(0, 4).map((event) => event.position));
    expect(back.links.prev).toBeNull();
  });

  it('gives the newest events with ?newest=true, in log order, the prev link to older ones', async () => {
    const all: AuditPage['data'] = [];
    for (let link: string | null = '/audit/events?limit=1000'; link;) {
      const page = (await (await auditor.get(link)).json()) as AuditPage;
      all.push(...page.data);
      link = page.links.next;
    }
    const newest = (await (await auditor.get('/audit/events?newest=true&limit=3')).json()) as AuditPage;
    expect(newest.data.map((event) => event.position)).toEqual(all.slice(-3).map((event) => event.position));
    expect(newest.links.next).toBeNull();
    const older = (await (await auditor.get(newest.links.prev!)).json()) as AuditPage;
    expect(older.data.map((event) => event.position)).toEqual(
      all.slice(-6, -3).map((event) => event.position),
    );
    const both = await auditor.get(`/audit/events?newest=true&after=${all[0]!.position}`);
    expect((await problemOf(both)).errors?.[0]?.field).toBe('newest');
  });

  it('keeps to a span of time, from (inclusive) until (exclusive), forward, newest first and in the links', async () => {
    type Timed = AuditPage & { data: { occurredAt: string }[] };
    // Alice's orders were placed a second apart from 10:00:01: the span holds the 3rd, 4th and 5th.
    const span = 'from=2026-11-21T10:00:03Z&until=2026-11-21T10:00:06Z';
    const inSpan = [4, 3, 2].map((index) => `order-${aliceOrders[index]!.id}`);
    const read = async (link: string) => (await (await auditor.get(link)).json()) as Timed;
    const forward = await read(`/audit/events?${span}`);
    expect([...new Set(forward.data.map((event) => event.streamId))]).toEqual(inSpan);
    for (const { occurredAt } of forward.data) {
      expect(occurredAt >= '2026-11-21T10:00:03' && occurredAt < '2026-11-21T10:00:06', occurredAt).toBe(
        true,
      );
    }
    expect(forward.links).toEqual({ next: null, prev: null });

    const newest = await read(`/audit/events?newest=true&limit=1&${span}`);
    expect(newest.data.map((event) => event.position)).toEqual([forward.data.at(-1)!.position]);
    expect(newest.links.next).toBeNull();
    expect(newest.links.prev).toContain('until=2026-11-21T10%3A00%3A06Z');
    const older = await read(newest.links.prev!);
    expect(older.data.map((event) => event.position)).toEqual([forward.data.at(-2)!.position]);

    const bad = await auditor.get('/audit/events?from=yesterday');
    expect((await problemOf(bad)).errors?.map((error) => error.field)).toEqual(['from']);
  });

  it('answers 403 to customers and staff, 400 to a bad position', async () => {
    expect((await alice.get('/audit/events')).status).toBe(403);
    expect((await staff.get('/audit/events')).status).toBe(403);
    const bad = await auditor.get('/audit/events?after=-4&limit=5000');
    expect((await problemOf(bad)).errors?.map((error) => error.field).sort()).toEqual(['after', 'limit']);
  });
});

describe('read your writes: Consistency-Token', () => {
  it('answers 503 with Retry-After when the read models do not reach the position in time', async () => {
    const slow = await startTestService({ CONSISTENCY_TIMEOUT_MS: '0' });
    // An event appended behind the service's back: it is in the log at once, in the read models only
    // once the projections next look, which is later than a timeout of 0 ms.
    const log = await openEventLog(slow.eventLog, 'test');
    try {
      const reader = await orderActor(slow, ['staff']);
      // The projections poll the file on a timer of their own: one may fire between the append and the
      // query, and then the read models are there in time (200). Each try is one or the other; a 503 comes
      // within a few tries.
      let response: Response | undefined;
      for (let attempt = 1; attempt <= 20 && response?.status !== 503; attempt++) {
        const { position } = await log.appendToStream(`probe-${randomUUID()}`, [anEvent()], {
          expectedRevision: 'no-stream',
        });
        response = await reader.get('/orders', {
          'Consistency-Token': consistencyTokenFor(slow, position, reader.id),
        });
        expect([200, 503]).toContain(response.status);
      }
      if (!response) throw new Error('no query was sent');
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect((await problemOf(response)).type).toBe('https://orders.example/problems/service-unavailable');
    } finally {
      await log.close();
      await slow.stop();
    }
  });

  it('refuses at once a token of its own beyond the end of the log: the log it names is not this one', async () => {
    // A million positions past the log's head: in every log's numbering, beyond its end. A token the service
    // issued to alice (with its key) for a log that has since lost that write, as after a restore.
    const log = await openEventLog(service.eventLog, 'test');
    const beyond = (await log.headPosition())! + 1_000_000n;
    await log.close();
    const response = await alice.get('/orders', {
      'Consistency-Token': consistencyTokenFor(service, beyond, alice.id),
    });
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem.errors).toEqual([
      { field: 'Consistency-Token', message: expect.stringContaining('log has not reached') },
    ]);
  });

  it('refuses a token that is not one', async () => {
    const response = await alice.get('/orders', { 'Consistency-Token': 'yesterday' });
    expect(response.status).toBe(400);
    expect((await problemOf(response)).errors?.[0]?.field).toBe('Consistency-Token');
  });

  describe('a token the service did not issue to this caller tells nothing about the log', () => {
    /** What a refused token is answered: everything but the request's own id. */
    const answerTo = async (reader: OrderActor, token: string) => {
      const response = await reader.get('/orders', { 'Consistency-Token': token });
      const { instance: _instance, ...problem } = (await problemOf(response)) as { instance?: string };
      return { status: response.status, problem };
    };
    const macOf = (token: string) => token.slice(token.indexOf('.') + 1);

    it('a customer without orders learns nothing of the head: forged below and above it, the same 400', async () => {
      const carol = await orderActor(service, ['customer']);
      const log = await openEventLog(service.eventLog, 'test');
      const head = (await log.headPosition())!;
      await log.close();
      // Bare positions (the form of before tokens were bound) and positions with a made-up MAC alike.
      const forged = [1n, head - 1n, head, head + 1n, head + 1_000_000n].flatMap((position) => [
        position.toString(),
        `${position}.${'A'.repeat(22)}`,
      ]);
      const answers = await Promise.all(forged.map((token) => answerTo(carol, token)));
      expect(answers[0]!.status).toBe(400);
      expect(answers[0]!.problem).toMatchObject({
        type: 'https://orders.example/problems/validation-failed',
        errors: [{ field: 'Consistency-Token', message: expect.stringContaining('sent you') }],
      });
      for (const answer of answers) expect(answer).toEqual(answers[0]);
    });

    it("another caller's token, or one's own with its position changed, is answered the same, whatever it names", async () => {
      const { consistencyToken: bobs } = await bob.placeOrder();
      const { consistencyToken: alices } = await alice.placeOrder();
      const bobsPosition = positionOfToken(bobs);
      const refusals = await Promise.all([
        // Bob's token, sent by alice: below the head.
        answerTo(alice, bobs),
        // Bob's MAC on other positions, below and above the head.
        answerTo(alice, `${bobsPosition - 1n}.${macOf(bobs)}`),
        answerTo(alice, `${bobsPosition + 1_000_000n}.${macOf(bobs)}`),
        // Alice's own MAC moved to another position.
        answerTo(alice, `${positionOfToken(alices) + 1n}.${macOf(alices)}`),
        answerTo(alice, `${positionOfToken(alices) - 1n}.${macOf(alices)}`),
      ]);
      expect(refusals[0]!.status).toBe(400);
      for (const refusal of refusals) expect(refusal).toEqual(refusals[0]);
      // A token of a forged position with the other caller's MAC is no more than a forged one.
      expect(refusals[0]).toEqual(await answerTo(alice, `${bobsPosition}.${'A'.repeat(22)}`));
      // One's own tokens, sent back unchanged, work as before.
      expect((await bob.get('/orders', { 'Consistency-Token': bobs })).status).toBe(200);
      expect((await alice.get('/orders', { 'Consistency-Token': alices })).status).toBe(200);
    });
  });

  it('sees every write at once when the token is sent back', async () => {
    for (let index = 0; index < 20; index++) {
      const { order, consistencyToken } = await bob.placeOrder();
      const read = await bob.get(`/orders/${order.id}`, { 'Consistency-Token': consistencyToken });
      expect(read.status).toBe(200);
      // The very order the command answered: the same caller reads the same representation.
      expect(await read.json()).toEqual(order);
    }
  });
});

describe('Last-Modified and Date', () => {
  it('never sends a Last-Modified later than its Date, even when the order was stamped ahead of it', async () => {
    const ahead = await startTestService();
    try {
      // The business clock of this service may run ahead of the wall clock that stamps Date.
      await ahead.clock.advance(Date.now() - ahead.clock.now().getTime() + 120_000);
      const customer = await orderActor(ahead, ['customer']);
      const { order, consistencyToken } = await customer.placeOrder();
      const response = await customer.get(`/orders/${order.id}`, { 'Consistency-Token': consistencyToken });
      expect(response.status).toBe(200);
      expect(Date.parse(order.updatedAt)).toBeGreaterThan(Date.parse(response.headers.get('date')!));
      expect(Date.parse(response.headers.get('last-modified')!)).toBeLessThanOrEqual(
        Date.parse(response.headers.get('date')!),
      );
    } finally {
      await ahead.stop();
    }
  });
});
