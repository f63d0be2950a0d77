import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '../../catalog/catalog.ts';
import { placeOrderAs } from '../support/api-orders.ts';
import { expectInvalidFields, expectProblem, expectResponse } from '../support/api-expectations.ts';
import {
  apiSpecification,
  type ApiSpecification,
  type ApiUser,
  type Outcome,
} from '../support/api-specification.ts';
import { consistencyTokenFor, positionOfToken } from '../support/consistency-tokens.ts';
import { anEvent } from '../support/events.ts';
import { givenOrder, lineOf, type GivenOrder } from '../support/given-orders.ts';
import { anAddress, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let api: ApiSpecification;
let alice: ApiUser;
let bob: ApiUser;
let staff: ApiUser;
let auditor: ApiUser;
let admin: ApiUser;
/** Alice's seven orders, one product each, placed a second apart: newest first, the newest confirmed. */
const aliceOrders: (GivenOrder & { product: Product; total: number })[] = [];
/** The shop the queries read: alice's orders and one of bob's, appended to the log before the first. */
let shop: ReturnType<ApiSpecification['given']>;

type Page = { meta: { total: number; page: number; perPage: number }; data: OrderBody[] };
type CursorPage = {
  meta: { perPage: number };
  links: { next: string | null; prev: string | null };
  data: OrderBody[];
};

beforeAll(async () => {
  service = await startTestService();
  api = apiSpecification(service);
  [alice, bob, staff, auditor, admin] = await Promise.all([
    api.signIn(['customer']),
    api.signIn(['customer']),
    api.signIn(['staff']),
    api.signIn(['auditor']),
    api.signIn(['admin']),
  ]);
  const products = await service.catalog.listProducts();
  for (let index = 0; index < 7; index++) {
    await service.clock.advance(1000);
    const product = products.find(({ id }) => id === 1001 + index)!;
    const steps = index === 6 ? (['confirm'] as const) : [];
    const at = service.clock.now().toISOString();
    const order = givenOrder({ customer: alice, by: staff, at, items: [lineOf(product)] }, ...steps);
    aliceOrders.unshift({ ...order, product, total: product.priceMinor / 100 });
  }
  await service.clock.advance(1000);
  const bobs = givenOrder({ customer: bob, at: service.clock.now().toISOString() });
  shop = api.given(...[...aliceOrders].reverse(), bobs);
});
afterAll(async () => {
  await api?.close();
  await service?.stop();
});

const ids = (page: { data: OrderBody[] }) => page.data.map((order) => order.id);
const idsOf = (orders: { id: string }[]) => orders.map((order) => order.id);
/** What `reader` reads at `path` once the shop is in the read models: 200, and the body. */
const read = async <T>(reader: ApiUser, path: string): Promise<T> =>
  (await shop.when(reader.get(path)).then(expectResponse(200))).response.json<T>();
const follow = <T>(reader: ApiUser, link: string): Promise<T> => read<T>(reader, link);

describe('GET /orders/{id}', () => {
  /** Alice's newest order, confirmed: what every reader reads, but for `actions`. */
  const newest = () => {
    const { id, product, total, placedAt } = aliceOrders[0]!;
    return {
      id,
      status: 'confirmed',
      customerId: alice.id,
      items: [
        {
          productId: String(product.id),
          productName: product.name,
          quantity: 1,
          unitPrice: { amount: total, currency: 'EUR' },
        },
      ],
      total: { amount: total, currency: 'EUR' },
      shippingAddress: anAddress,
      note: null,
      payments: [],
      cancellationReason: null,
      createdAt: placedAt,
      updatedAt: placedAt,
    };
  };

  it('answers the owner, staff, auditor and admin with the order, private and no-cache, with a strong ETag', async () => {
    // Each with what it may do to the confirmed order now: the representation, and so its ETag, is the reader's.
    const actionsOf = new Map([
      [alice, ['cancel']],
      [staff, ['ship', 'record-payment', 'cancel']],
      [auditor, []],
      [admin, ['ship', 'record-payment', 'cancel']],
    ]);
    const etags = new Map<unknown, string>();
    for (const [reader, actions] of actionsOf) {
      const { response } = await shop
        .when(reader.get(`/orders/${aliceOrders[0]!.id}`))
        .then(expectResponse(200, { headers: { 'cache-control': 'private, no-cache', etag: /^"[\w-]+"$/ } }));
      expect(response.json()).toEqual({ ...newest(), actions });
      etags.set(reader, response.headers.get('etag')!);
    }
    expect(etags.get(staff)).toBe(etags.get(admin));
    expect(new Set([etags.get(alice), etags.get(staff), etags.get(auditor)]).size).toBe(3);
  });

  it("answers 404 to another customer's order, to an unknown id and to an id that is not a UUID", async () => {
    await shop
      .when(bob.get(`/orders/${aliceOrders[0]!.id}`))
      .then(expectProblem(404, { type: 'not-found', detail: 'There is no order with this id.' }));
    for (const path of ['/orders/6f1c1d9e-7c43-4a38-9f57-3c4b8f3d2a11', '/orders/not-an-id']) {
      await shop.when(alice.get(path)).then(expectProblem(404, { type: 'not-found' }));
    }
  });

  it('answers 412 to If-Match or If-Unmodified-Since that does not hold, 200 to one that does', async () => {
    const path = `/orders/${aliceOrders[0]!.id}`;
    const { response: current } = await shop.when(alice.get(path)).then(expectResponse(200));
    const etag = current.headers.get('etag')!;
    const lastModified = current.headers.get('last-modified')!;
    const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
    const refused = expectProblem(412, { type: 'precondition-failed' });
    await shop.when(alice.get(path, { 'If-Match': '"not-this-one"' })).then(refused);
    await shop.when(alice.get(path, { 'If-Match': etag })).then(expectResponse(200));
    await shop.when(alice.get(path, { 'If-Match': '*' })).then(expectResponse(200));
    await shop.when(alice.get(path, { 'If-Unmodified-Since': earlier })).then(refused);
    await shop.when(alice.get(path, { 'If-Unmodified-Since': lastModified })).then(expectResponse(200));
  });

  it('answers 304 to If-None-Match with the current ETag, repeating the validators', async () => {
    const path = `/orders/${aliceOrders[1]!.id}`;
    const { response: first } = await shop.when(alice.get(path)).then(expectResponse(200));
    const etag = first.headers.get('etag')!;
    const { response: again } = await shop
      .when(alice.get(path, { 'If-None-Match': etag }))
      .then(expectResponse(304, { headers: { etag, 'cache-control': 'private, no-cache' } }));
    expect(again.text).toBe('');
  });

  it('gives staff and auditors the state after event N with ?revision=N; customers get 403', async () => {
    const path = `/orders/${aliceOrders[0]!.id}`;
    await shop
      .when(auditor.get(`${path}?revision=0`))
      .then(expectResponse(200, { body: { status: 'pending', id: aliceOrders[0]!.id } }));
    // A past state, which nothing can be done to: the order without `actions`.
    const { response } = await shop.when(staff.get(`${path}?revision=1`)).then(expectResponse(200));
    expect(response.json()).toEqual(newest());
    await shop.when(auditor.get(`${path}?revision=2`)).then(expectProblem(404, { type: 'not-found' }));
    await shop.when(auditor.get(`${path}?revision=-1`)).then(expectInvalidFields('revision'));
    // Beyond any revision, however many digits: not found, like the next one; given twice: said so.
    await shop
      .when(auditor.get(`${path}?revision=9007199254740993`))
      .then(expectProblem(404, { detail: 'The order has revisions 0 to 1.' }));
    await shop
      .when(auditor.get(`${path}?revision=0&revision=1`))
      .then(expectProblem(400, { errors: [{ field: 'revision', message: 'must be given once' }] }));
    await shop.when(alice.get(`${path}?revision=0`)).then(expectProblem(403, { type: 'forbidden' }));
  });
});

describe('GET /orders/{id}/events', () => {
  it("lists the order's events oldest first; the owner sees the staff's roles, not their user id", async () => {
    type Listed = { type: string; revision: number; actor: { userId?: string; roles: string[] } }[];
    const path = `/orders/${aliceOrders[0]!.id}/events`;
    const asAuditor = await read<Listed>(auditor, path);
    expect(asAuditor.map((event) => [event.revision, event.type])).toEqual([
      [0, 'OrderPlaced'],
      [1, 'OrderConfirmed'],
    ]);
    expect(asAuditor[1]!.actor).toEqual({ userId: staff.id, roles: ['staff'] });
    const asOwner = await read<Listed>(alice, path);
    expect(asOwner[0]!.actor).toEqual({ userId: alice.id, roles: ['customer'] });
    expect(asOwner[1]!.actor).toEqual({ roles: ['staff'] });
    await shop.when(bob.get(path)).then(expectProblem(404, { type: 'not-found' }));
  });
});

describe('GET /orders, found by short id, by customer e-mail and by total', () => {
  it('finds an order by its id’s last 8 hex digits (any case), for staff; a customer only among its own', async () => {
    const wanted = aliceOrders[2]!;
    const byShortId = `/orders?page=1&idEndsWith=${wanted.id.slice(-8).toUpperCase()}`;
    expect(ids(await read<Page>(staff, byShortId))).toEqual([wanted.id]);
    expect(ids(await read<Page>(alice, byShortId))).toEqual([wanted.id]);
    expect(ids(await read<Page>(bob, byShortId))).toEqual([]);
    await shop.when(staff.get('/orders?idEndsWith=xyz')).then(expectInvalidFields('idEndsWith'));
  });

  it('finds the orders whose id begins so (any case), in both listings; a customer only among its own', async () => {
    const wanted = aliceOrders[3]!;
    const start = wanted.id.slice(0, 23).toUpperCase();
    expect(ids(await read<Page>(staff, `/orders?page=1&idStartsWith=${start}`))).toEqual([wanted.id]);
    expect(ids(await read<Page>(alice, `/orders?page=1&idStartsWith=${start}`))).toEqual([wanted.id]);
    expect(ids(await read<Page>(bob, `/orders?page=1&idStartsWith=${start}`))).toEqual([]);
    const inCursorListing = await read<CursorPage>(alice, `/orders?cursor=&idStartsWith=${start}`);
    expect(ids(inCursorListing)).toEqual([wanted.id]);
    for (const bad of ['01a', 'xyz1', '-01a2', `${wanted.id}0`]) {
      await shop.when(staff.get(`/orders?idStartsWith=${bad}`)).then(expectInvalidFields('idStartsWith'));
    }
  });

  it('keeps to the orders placed in a span of time, given as dates or times; 400 to another form', async () => {
    // Alice's seven orders were placed a second apart, the oldest last in aliceOrders.
    const from = aliceOrders[4]!.placedAt;
    const before = aliceOrders[1]!.placedAt;
    const page = await read<Page>(alice, `/orders?page=1&placedFrom=${from}&placedBefore=${before}`);
    expect(ids(page)).toEqual(idsOf(aliceOrders.slice(2, 5)));
    const wholeDay = await read<Page>(alice, `/orders?page=1&placedFrom=${from.slice(0, 10)}`);
    expect(wholeDay.meta.total).toBe(7);
    await shop.when(alice.get('/orders?placedFrom=yesterday')).then(expectInvalidFields('placedFrom'));
  });

  it('keeps to the orders whose total is within bounds, inclusive, in EUR decimals; carries them in the links', async () => {
    // Alice's seven orders are one each of seven products: their totals take three amounts at least.
    const amounts = [...new Set(aliceOrders.map((order) => order.total))].sort((a, b) => a - b);
    expect(amounts.length).toBeGreaterThanOrEqual(3);
    const middle = amounts[1]!;
    const within = (low: number, high: number) =>
      idsOf(aliceOrders.filter((order) => order.total >= low && order.total <= high));
    // Inclusive at both ends: the middle amount alone, neither the cheaper nor the dearer orders.
    const page = await read<Page>(staff, `/orders?page=1&minTotal=${middle}&maxTotal=${middle}`);
    expect(ids(page)).toEqual(within(middle, middle));
    expect(page.meta.total).toBe(within(middle, middle).length);
    expect(page.data.every((order) => order.total.currency === 'EUR')).toBe(true);
    // A cursor's links keep the bounds.
    const dearer = within(middle, Infinity);
    expect(dearer.length).toBeGreaterThanOrEqual(2);
    const first = await read<CursorPage>(alice, `/orders?cursor=&perPage=1&minTotal=${middle}`);
    expect(ids(first)).toEqual(dearer.slice(0, 1));
    expect(first.links.next).toContain(`minTotal=${middle}`);
    expect(ids(await follow<CursorPage>(alice, first.links.next!))).toEqual(dearer.slice(1, 2));
    expect(ids(await read<Page>(alice, `/orders?page=1&maxTotal=${middle}`))).toEqual(within(0, middle));
    // Bob sees only his own, whatever the bounds.
    const bobs = await read<Page>(bob, '/orders?page=1&minTotal=0');
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
      await shop.when(staff.get(`/orders?${query}`)).then(expectInvalidFields(field));
    }
    // A decimal too large to be a total is told so, not that it is no decimal.
    await shop.when(staff.get('/orders?maxTotal=99999999999999999999999')).then(
      expectProblem(400, {
        errors: [{ field: 'maxTotal', message: 'is too large: at most 12 digits before the point' }],
      }),
    );
    await shop
      .when(staff.get('/orders?minTotal=1&minTotal=2'))
      .then(expectProblem(400, { errors: [{ field: 'minTotal', message: 'must be given once' }] }));
    // Each bound told what is wrong with it, both at once; leading zeros are no digits of the amount.
    await shop
      .when(staff.get('/orders?minTotal=-5'))
      .then(expectProblem(400, { errors: [{ field: 'minTotal', message: 'must not be negative' }] }));
    await shop
      .when(staff.get('/orders?maxTotal=1.2300'))
      .then(
        expectProblem(400, { errors: [{ field: 'maxTotal', message: 'EUR has at most 2 decimal places' }] }),
      );
    await shop.when(staff.get('/orders?minTotal=1.001&maxTotal=2.002')).then(
      expectProblem(400, {
        errors: [
          { field: 'minTotal', message: 'EUR has at most 2 decimal places' },
          { field: 'maxTotal', message: 'EUR has at most 2 decimal places' },
        ],
      }),
    );
    const padded = await read<Page>(
      staff,
      `/orders?page=1&minTotal=0000000000000${middle}&maxTotal=${middle}`,
    );
    expect(padded.meta.total).toBe(1);
  });

  it('names the customer of each listed order, by id, with its name and e-mail; a customer reads only itself', async () => {
    type Named = { data: OrderBody[]; customers: Record<string, { name: string; email: string }> };
    const asStaff = await read<Named>(staff, '/orders?cursor=&perPage=100');
    expect(new Set(asStaff.data.map((order) => order.customerId))).toEqual(new Set([alice.id, bob.id]));
    expect(asStaff.customers).toEqual({
      [alice.id]: { name: 'Test customer', email: alice.email },
      [bob.id]: { name: 'Test customer', email: bob.email },
    });
    const asAlice = await read<Named>(alice, '/orders?page=1&perPage=2');
    expect(asAlice.customers).toEqual({ [alice.id]: { name: 'Test customer', email: alice.email } });
  });

  it('lists a customer’s orders by its e-mail (any case) for staff, and carries the filter in the links', async () => {
    const email = (address: string) => encodeURIComponent(address);
    const first = await read<CursorPage>(
      staff,
      `/orders?cursor=&perPage=5&customerEmail=${email(alice.email.toUpperCase())}`,
    );
    expect(ids(first)).toEqual(idsOf(aliceOrders.slice(0, 5)));
    expect(first.links.next).toContain(`customerEmail=${email(alice.email)}`);
    expect(ids(await follow<CursorPage>(staff, first.links.next!))).toEqual(idsOf(aliceOrders.slice(5)));
    // Nobody's address, and another's for a customer: no orders, not an error.
    expect(ids(await read<Page>(staff, '/orders?page=1&customerEmail=nobody%40shop.example'))).toEqual([]);
    expect(ids(await read<Page>(bob, `/orders?page=1&customerEmail=${email(alice.email)}`))).toEqual([]);
    await shop
      .when(staff.get('/orders?customerEmail=not-an-address'))
      .then(expectInvalidFields('customerEmail'));
  });
});

describe('GET /orders, page variant', () => {
  it('gives a customer only its own orders, newest first, with total, page and perPage', async () => {
    const { response } = await shop
      .when(alice.get('/orders?page=1&perPage=3'))
      .then(expectResponse(200, { headers: { 'cache-control': 'private, no-cache' } }));
    const page = response.json<Page>();
    expect(page.meta).toEqual({ total: 7, page: 1, perPage: 3 });
    expect(ids(page)).toEqual(idsOf(aliceOrders.slice(0, 3)));
    expect(ids(await read<Page>(alice, '/orders?page=3&perPage=3'))).toEqual([aliceOrders[6]!.id]);
    expect(await read<Page>(alice, '/orders?page=9&perPage=3')).toEqual({
      meta: { total: 7, page: 9, perPage: 3 },
      data: [],
      customers: {},
    });
  });

  it('gives staff every order, filters by status, and defaults to page 1 of 20', async () => {
    expect((await read<Page>(staff, '/orders')).meta).toEqual({ total: 8, page: 1, perPage: 20 });
    expect(ids(await read<Page>(auditor, '/orders?status=confirmed'))).toEqual([aliceOrders[0]!.id]);
  });

  it('refuses bad paging and filters with a 400 naming each parameter', async () => {
    await shop
      .when(alice.get('/orders?page=0&perPage=101&status=lost'))
      .then(expectInvalidFields('page', 'perPage', 'status'));
    await shop.when(alice.get('/orders?page=1&cursor=')).then(
      expectProblem(400, {
        errors: [{ field: 'cursor', message: 'use either page or cursor, not both' }],
      }),
    );
    await shop.when(alice.get('/orders?cursor=bm90LWEtY3Vyc29y')).then(expectInvalidFields('cursor'));
  });
});

describe('GET /orders, cursor variant', () => {
  it('walks next to the end and prev back to the start, links null at either end', async () => {
    const pages: CursorPage[] = [];
    for (let link: string | null = '/orders?cursor=&perPage=3'; link; link = pages.at(-1)!.links.next) {
      pages.push(await follow<CursorPage>(alice, link));
    }
    expect(pages.flatMap(ids)).toEqual(idsOf(aliceOrders));
    expect(pages[0]!.links.prev).toBeNull();
    expect(pages.at(-1)!.links.next).toBeNull();
    expect(pages[0]!.meta).toEqual({ perPage: 3 });

    const back = await follow<CursorPage>(alice, pages.at(-1)!.links.prev!);
    expect(ids(back)).toEqual(ids(pages[1]!));
    const start = await follow<CursorPage>(alice, back.links.prev!);
    expect(ids(start)).toEqual(ids(pages[0]!));
    expect(start.links.prev).toBeNull();
  });

  it('stays stable under concurrent inserts: a new order does not shift the page a cursor points to', async () => {
    const first = await read<CursorPage>(alice, '/orders?cursor=&perPage=3');
    await service.clock.advance(1000);
    const newer = givenOrder({ customer: alice, at: service.clock.now().toISOString() });
    const { response } = await api.given(newer).when(alice.get(first.links.next!)).then(expectResponse(200));
    expect(ids(response.json<CursorPage>())).toEqual(idsOf(aliceOrders.slice(3, 6)));
  });

  it('keeps the status filter in its links', async () => {
    const page = await read<CursorPage>(staff, '/orders?cursor=&perPage=1&status=pending');
    expect(page.links.next).toContain('status=pending');
    const next = await follow<CursorPage>(staff, page.links.next!);
    expect(next.data.length).toBe(1);
    expect(next.data.every((order) => order.status === 'pending')).toBe(true);
  });
});

describe('GET /audit/events', () => {
  type AuditPage = {
    meta: { perPage: number };
    links: { next: string | null; prev: string | null };
    data: { position: string; type: string; streamId: string; occurredAt: string }[];
  };
  const positions = (page: { data: { position: string }[] }) => page.data.map((event) => event.position);
  /** The position of every event in the log, read from the log itself. */
  const positionsInLog = async () => {
    const log = await api.eventLog();
    const all: string[] = [];
    for (let after: bigint | undefined; ;) {
      const batch = await log.readAll({ ...(after === undefined ? {} : { after }), maxCount: 1000 });
      if (batch.length === 0) return all;
      all.push(...batch.map((event) => String(event.position)));
      after = batch.at(-1)!.position;
    }
  };
  const wholeLog = async () => {
    const all: AuditPage['data'] = [];
    for (let link: string | null = '/audit/events?limit=1000'; link;) {
      const page: AuditPage = await read<AuditPage>(auditor, link);
      all.push(...page.data);
      link = page.links.next;
    }
    return all;
  };

  it('pages the whole log in log order for auditors and admins, forward and back', async () => {
    const all: AuditPage['data'] = [];
    let pages = 0;
    for (let link: string | null = '/audit/events?limit=4'; link; pages++) {
      const { response } = await shop
        .when(auditor.get(link))
        .then(expectResponse(200, { headers: { 'cache-control': 'private, no-cache' } }));
      const page = response.json<AuditPage>();
      all.push(...page.data);
      link = page.links.next;
    }
    // Every event of the log, as the log itself holds them, in its order.
    expect(all.map((event) => event.position)).toEqual(await positionsInLog());
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(pages).toBe(Math.ceil(all.length / 4));

    const second = await read<AuditPage>(admin, `/audit/events?after=${all[3]!.position}&limit=4`);
    expect(positions(second)).toEqual(positions({ data: all.slice(4, 8) }));
    const back = await follow<AuditPage>(admin, second.links.prev!);
    expect(positions(back)).toEqual(positions({ data: all.slice(0, 4) }));
    expect(back.links.prev).toBeNull();
  });

  it('gives the newest events with ?newest=true, in log order, the prev link to older ones', async () => {
    const all = await wholeLog();
    const newest = await read<AuditPage>(auditor, '/audit/events?newest=true&limit=3');
    expect(positions(newest)).toEqual(positions({ data: all.slice(-3) }));
    expect(newest.links.next).toBeNull();
    const older = await follow<AuditPage>(auditor, newest.links.prev!);
    expect(positions(older)).toEqual(positions({ data: all.slice(-6, -3) }));
    await shop
      .when(auditor.get(`/audit/events?newest=true&after=${all[0]!.position}`))
      .then(expectInvalidFields('newest'));
  });

  it('keeps to a span of time, from (inclusive) until (exclusive), forward, newest first and in the links', async () => {
    // Alice's orders were placed a second apart from 10:00:01: the span holds the 3rd, 4th and 5th.
    const span = 'from=2026-11-21T10:00:03Z&until=2026-11-21T10:00:06Z';
    const inSpan = [4, 3, 2].map((index) => aliceOrders[index]!.streamId);
    const forward = await read<AuditPage>(auditor, `/audit/events?${span}`);
    expect([...new Set(forward.data.map((event) => event.streamId))]).toEqual(inSpan);
    for (const { occurredAt } of forward.data) {
      expect(occurredAt >= '2026-11-21T10:00:03' && occurredAt < '2026-11-21T10:00:06', occurredAt).toBe(
        true,
      );
    }
    expect(forward.links).toEqual({ next: null, prev: null });

    const newest = await read<AuditPage>(auditor, `/audit/events?newest=true&limit=1&${span}`);
    expect(positions(newest)).toEqual([forward.data.at(-1)!.position]);
    expect(newest.links.next).toBeNull();
    expect(newest.links.prev).toContain('until=2026-11-21T10%3A00%3A06Z');
    const older = await follow<AuditPage>(auditor, newest.links.prev!);
    expect(positions(older)).toEqual([forward.data.at(-2)!.position]);

    await shop.when(auditor.get('/audit/events?from=yesterday')).then(expectInvalidFields('from'));
  });

  it('answers 403 to customers and staff, 400 to a bad position', async () => {
    for (const reader of [alice, staff]) {
      await shop.when(reader.get('/audit/events')).then(expectProblem(403, { type: 'forbidden' }));
    }
    await shop
      .when(auditor.get('/audit/events?after=-4&limit=5000'))
      .then(expectInvalidFields('after', 'limit'));
  });
});

describe('read your writes: Consistency-Token', () => {
  it('answers 503 with Retry-After when the read models do not reach the position in time', async () => {
    const slow = await startTestService({ CONSISTENCY_TIMEOUT_MS: '0' });
    const slowApi = apiSpecification(slow);
    try {
      const reader = await slowApi.signIn(['staff']);
      // Given an event appended behind the service's back: it is in the log at once, in the read models
      // only once the projections next look, which is later than a timeout of 0 ms. They poll the file on
      // a timer of their own: one may fire between the append and the query, and then the read models are
      // there in time (200). Each try is one or the other; a 503 comes within a few tries.
      const probe = () => ({ streamId: `probe-${randomUUID()}`, events: [anEvent()] });
      let outcome: Outcome | undefined;
      for (let attempt = 1; attempt <= 20 && outcome?.response.status !== 503; attempt++) {
        outcome = await slowApi
          .given(probe())
          .when(reader.get('/orders'))
          .then(({ response }) => expect([200, 503]).toContain(response.status));
      }
      if (!outcome) throw new Error('no query was sent');
      expectProblem(503, { type: 'service-unavailable' })(outcome);
      expectResponse(503, { headers: { 'retry-after': '1', 'cache-control': 'no-store' } })(outcome);
    } finally {
      await slowApi.close();
      await slow.stop();
    }
  });

  it('refuses at once a token of its own beyond the end of the log: the log it names is not this one', async () => {
    // A million positions past the log's head: in every log's numbering, beyond its end. A token the service
    // issued to alice (with its key) for a log that has since lost that write, as after a restore.
    const beyond = (await (await api.eventLog()).headPosition())! + 1_000_000n;
    await shop
      .when(alice.get('/orders', { 'Consistency-Token': consistencyTokenFor(service, beyond, alice.id) }))
      .then(
        expectProblem(400, {
          errors: [{ field: 'Consistency-Token', message: expect.stringContaining('log has not reached') }],
        }),
      );
  });

  it('refuses a token that is not one', async () => {
    await shop
      .when(alice.get('/orders', { 'Consistency-Token': 'yesterday' }))
      .then(expectInvalidFields('Consistency-Token'));
  });

  describe('a token the service did not issue to this caller tells nothing about the log', () => {
    /** What a refused token is answered: everything but the request's own id. */
    const answerTo = async (reader: ApiUser, token: string) => {
      const response = await reader.get('/orders', { 'Consistency-Token': token }).send();
      const { instance: _instance, ...problem } = response.json<{ instance?: string }>();
      return { status: response.status, type: response.headers.get('content-type'), problem };
    };
    const macOf = (token: string) => token.slice(token.indexOf('.') + 1);

    it('a customer without orders learns nothing of the head: forged below and above it, the same 400', async () => {
      const carol = await api.signIn(['customer']);
      const head = (await (await api.eventLog()).headPosition())!;
      // Bare positions (the form of before tokens were bound) and positions with a made-up MAC alike.
      const forged = [1n, head - 1n, head, head + 1n, head + 1_000_000n].flatMap((position) => [
        position.toString(),
        `${position}.${'A'.repeat(22)}`,
      ]);
      const answers = await Promise.all(forged.map((token) => answerTo(carol, token)));
      expect(answers[0]).toMatchObject({
        status: 400,
        type: expect.stringMatching(/^application\/problem\+json/),
        problem: {
          type: 'https://orders.example/problems/validation-failed',
          errors: [{ field: 'Consistency-Token', message: expect.stringContaining('sent you') }],
        },
      });
      for (const answer of answers) expect(answer).toEqual(answers[0]);
    });

    it("another caller's token, or one's own with its position changed, is answered the same, whatever it names", async () => {
      const { consistencyToken: bobs } = await placeOrderAs(bob);
      const { consistencyToken: alices } = await placeOrderAs(alice);
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
      expect((await bob.get('/orders', { 'Consistency-Token': bobs }).send()).status).toBe(200);
      expect((await alice.get('/orders', { 'Consistency-Token': alices }).send()).status).toBe(200);
    });
  });

  it('sees every write at once when the token is sent back', async () => {
    for (let index = 0; index < 20; index++) {
      const { order, consistencyToken } = await placeOrderAs(bob);
      const readBack = await bob.get(`/orders/${order.id}`, { 'Consistency-Token': consistencyToken }).send();
      expect(readBack.status).toBe(200);
      // The very order the command answered: the same caller reads the same representation.
      expect(readBack.json()).toEqual(order);
    }
  });
});

describe('Last-Modified and Date', () => {
  it('never sends a Last-Modified later than its Date, even when the order was stamped ahead of it', async () => {
    const ahead = await startTestService();
    const aheadApi = apiSpecification(ahead);
    try {
      // The business clock of this service may run ahead of the wall clock that stamps Date.
      await ahead.clock.advance(Date.now() - ahead.clock.now().getTime() + 120_000);
      const customer = await aheadApi.signIn(['customer']);
      const { order, consistencyToken } = await placeOrderAs(customer);
      const response = await customer
        .get(`/orders/${order.id}`, { 'Consistency-Token': consistencyToken })
        .send();
      expect(response.status).toBe(200);
      const date = Date.parse(response.headers.get('date')!);
      expect(Date.parse(order.updatedAt)).toBeGreaterThan(date);
      expect(Date.parse(response.headers.get('last-modified')!)).toBeLessThanOrEqual(date);
    } finally {
      await aheadApi.close();
      await ahead.stop();
    }
  });
});
