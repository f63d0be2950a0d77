import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStreamName } from '../../domain/orders/order.ts';
import type { ProblemDetails } from '../../infrastructure/http/problem-details.ts';
import { placeOrderAs } from '../support/api-orders.ts';
import { expectProblem, expectResponse } from '../support/api-expectations.ts';
import {
  apiSpecification,
  type ApiSpecification,
  type ApiUser,
  type Check,
  type Outcome,
  type UserRequest,
} from '../support/api-specification.ts';
import { anAddress, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

// POST /orders appends to a stream no given names: what it appended is read from the log by the order's id,
// and "nothing appended" is the log's head where it was before the request.

let service: TestService;
let api: ApiSpecification;
let customer: ApiUser;
let addressId: string;

/** A stored address of `user`, added through the API: its id. */
const addressOf = async (user: ApiUser) => {
  const response = await user.post('/users/me/addresses', anAddress).send();
  if (response.status !== 201) throw new Error(`address: ${response.status} ${response.text}`);
  return response.json<{ id: string }>().id;
};

beforeAll(async () => {
  service = await startTestService();
  api = apiSpecification(service);
  customer = await api.signIn(['customer']);
  addressId = await addressOf(customer);
});
afterAll(async () => {
  await api?.close();
  await service?.stop();
});

/** `request` answered as `checks` say, having appended nothing to the log, to any stream. */
const refused = async (request: UserRequest, ...checks: [Check, ...Check[]]): Promise<Outcome> => {
  const log = await api.eventLog();
  const head = await log.headPosition();
  const outcome = await api
    .given()
    .when(request)
    .then(...checks);
  expect(await log.headPosition(), 'the head of the log: nothing appended').toBe(head);
  return outcome;
};

/** 400 validation-failed at /orders, with exactly these errors, one per field named (a message checked where given). */
const expectValidationErrors =
  (errors: { field: string; message?: string | RegExp }[]): Check =>
  (outcome) => {
    expectProblem(400, { type: 'validation-failed', instance: '/orders' })(outcome);
    const problem = outcome.response.json<ProblemDetails>();
    expect(problem.errors?.map((error) => error.field).sort()).toEqual(
      errors.map((error) => error.field).sort(),
    );
    for (const expected of errors) {
      if (expected.message === undefined) continue;
      const actual = problem.errors!.find((error) => error.field === expected.field)!;
      expect(actual.message, expected.field).toMatch(expected.message);
    }
  };

/** The customer's order of `body`, refused with these errors and nothing appended. */
const refusesOrder = (body: unknown, errors: { field: string; message?: string | RegExp }[]) =>
  refused(customer.post('/orders', body), expectValidationErrors(errors));

describe('POST /orders: given a customer with a stored address', () => {
  it('creates the order: 201, Location, the order priced from the catalogue, ETag and Consistency-Token', async () => {
    const placing = api.given();
    const { response } = await placing
      .when(
        customer.post('/orders', {
          items: [
            { productId: '1001', quantity: 2 },
            { productId: '1002', quantity: 1 },
          ],
          shippingAddressId: addressId,
          note: 'Ring twice',
        }),
      )
      .then(
        expectResponse(201, {
          headers: {
            location: /^\/orders\/[0-9a-f-]{36}$/,
            'cache-control': 'no-store',
            etag: /^"[\w-]+"$/,
            'consistency-token': /^\d+\.[\w-]{22}$/,
          },
        }),
      );
    const order = response.json<OrderBody>();
    expect(response.headers.get('location')).toBe(`/orders/${order.id}`);
    expect(order).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      customerId: customer.id,
      items: [
        {
          productId: '1001',
          productName: 'Espresso cup',
          quantity: 2,
          unitPrice: { amount: 19.99, currency: 'EUR' },
        },
        {
          productId: '1002',
          productName: 'Double-walled latte glass',
          quantity: 1,
          unitPrice: { amount: 7.5, currency: 'EUR' },
        },
      ],
      total: { amount: 47.48, currency: 'EUR' },
      shippingAddress: anAddress,
      note: 'Ring twice',
      payments: [],
      cancellationReason: null,
      createdAt: '2026-11-21T10:00:00.000Z',
      updatedAt: '2026-11-21T10:00:00.000Z',
      // What its customer may do to it now.
      actions: ['cancel'],
    });
    // One event, the order as the command side priced it, recording who placed it.
    expect(await api.eventsOf(orderStreamName(order.id))).toMatchObject([
      {
        type: 'OrderPlaced',
        data: {
          orderId: order.id,
          customerId: customer.id,
          items: [
            { productId: '1001', quantity: 2, unitPrice: { amountMinor: 1999, currency: 'EUR' } },
            { productId: '1002', quantity: 1, unitPrice: { amountMinor: 750, currency: 'EUR' } },
          ],
          total: { amountMinor: 4748, currency: 'EUR' },
          placedAt: '2026-11-21T10:00:00.000Z',
        },
        metadata: { actor: { userId: customer.id, roles: ['customer'] } },
      },
    ]);

    const token = response.headers.get('consistency-token')!;
    const read = await placing
      .when(customer.get(`/orders/${order.id}`, { 'Consistency-Token': token }))
      .then(expectResponse(200, { headers: { etag: response.headers.get('etag') } }));
    expect(read.response.json()).toEqual(order);
  });

  it('names each new order with a UUIDv7, so that ids follow the order in which orders were placed', async () => {
    const millisecondsOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    const placed: { id: string; from: number; to: number }[] = [];
    for (let n = 0; n < 3; n++) {
      const from = Date.now();
      const { response } = await api
        .given()
        .when(
          customer.post('/orders', {
            items: [{ productId: '1001', quantity: 1 }],
            shippingAddressId: addressId,
          }),
        )
        .then(expectResponse(201));
      const to = Date.now();
      placed.push({ id: response.json<OrderBody>().id, from, to });
    }
    for (const { id, from, to } of placed) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(millisecondsOf(id)).toBeGreaterThanOrEqual(from);
      expect(millisecondsOf(id)).toBeLessThanOrEqual(to);
    }
  });

  it('keeps the prices and names of the moment of ordering when the catalogue changes later', async () => {
    const placing = api.given();
    const { response } = await placing
      .when(
        customer.post('/orders', {
          items: [{ productId: '1003', quantity: 1 }],
          shippingAddressId: addressId,
        }),
      )
      .then(expectResponse(201));
    const order = response.json<OrderBody>();
    const product = (await service.catalog.getProduct(1003))!;
    await service.catalog.importCatalog(
      { products: [{ ...product, name: 'Renamed kettle', priceMinor: 1 }], categories: [] },
      { replace: false, at: new Date() },
    );
    try {
      // The catalogue did change: the order read afterwards is not read from it.
      expect(await service.catalog.getProduct(1003)).toMatchObject({ name: 'Renamed kettle', priceMinor: 1 });
      const read = await placing.when(customer.get(`/orders/${order.id}`)).then(expectResponse(200));
      expect(read.response.json<OrderBody>().items).toEqual([
        {
          productId: '1003',
          productName: 'Pour-over kettle',
          quantity: 1,
          unitPrice: { amount: 49.95, currency: 'EUR' },
        },
      ]);
      expect(read.response.json<OrderBody>().total).toEqual({ amount: 49.95, currency: 'EUR' });
    } finally {
      await service.catalog.importCatalog(
        { products: [product], categories: [] },
        { replace: false, at: new Date() },
      );
    }
  });

  it('refuses an order without items, with an errors entry on items', async () => {
    await refusesOrder({ items: [], shippingAddressId: addressId }, [
      { field: 'items', message: 'an order needs at least one item' },
    ]);
  });

  it('refuses quantities that are zero, negative, fractional, too large or not numbers, each at its index', async () => {
    await refusesOrder(
      {
        items: [
          { productId: '1001', quantity: 0 },
          { productId: '1002', quantity: -3 },
          { productId: '1003', quantity: 1.5 },
          { productId: '1004', quantity: 1001 },
          { productId: '1005', quantity: '2' },
        ],
        shippingAddressId: addressId,
      },
      [
        { field: 'items[0].quantity', message: 'must be greater than 0' },
        { field: 'items[1].quantity', message: 'must be greater than 0' },
        { field: 'items[2].quantity', message: 'must be an integer' },
        { field: 'items[3].quantity', message: 'must be at most 1000' },
        { field: 'items[4].quantity' },
      ],
    );
  });

  it('reports every problem of one request at once: shape, unknown product, unknown address, unknown field', async () => {
    await refusesOrder(
      {
        items: [
          { productId: '999999', quantity: 1 },
          { productId: '1001', quantity: 0 },
          { productId: 'not-a-product', quantity: 1 },
        ],
        shippingAddressId: '00000000-0000-4000-8000-000000000000',
        coupon: 'FREE',
      },
      [
        { field: 'items[0].productId', message: 'no product with this id' },
        { field: 'items[1].quantity' },
        { field: 'items[2].productId', message: 'no product with this id' },
        { field: 'shippingAddressId', message: 'you have no stored address with this id' },
        { field: 'coupon', message: 'unknown field' },
      ],
    );
  });

  it("refuses another user's address as unknown", async () => {
    const other = await api.signIn(['customer']);
    const theirAddress = await addressOf(other);
    await refusesOrder({ items: [{ productId: '1001', quantity: 1 }], shippingAddressId: theirAddress }, [
      { field: 'shippingAddressId', message: 'you have no stored address with this id' },
    ]);
  });

  it('refuses duplicate product lines, more than 100 items, over-long notes, ids that are not UUIDs', async () => {
    await refusesOrder(
      {
        items: [
          { productId: '1001', quantity: 1 },
          { productId: '1001', quantity: 2 },
        ],
        shippingAddressId: addressId,
      },
      [{ field: 'items[1].productId', message: /more than once/ }],
    );
    await refusesOrder(
      {
        items: Array.from({ length: 101 }, (_, index) => ({
          productId: String(1001 + (index % 30)), // products in stock: only the count is wrong
          quantity: 1,
        })),
        shippingAddressId: addressId,
      },
      [{ field: 'items', message: 'at most 100 items' }],
    );
    await refusesOrder(
      { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: addressId, note: 'x'.repeat(1001) },
      [{ field: 'note', message: 'must be at most 1000 characters' }],
    );
    await refusesOrder({ items: [{ productId: '1001', quantity: 1 }], shippingAddressId: 'home' }, [
      { field: 'shippingAddressId' },
    ]);
  });

  it('refuses wrong types and non-object bodies with a 400, never a 500', async () => {
    await refusesOrder({ items: 'lots', shippingAddressId: 7, note: 3 }, [
      { field: 'items' },
      { field: 'shippingAddressId' },
      { field: 'note' },
    ]);
    await refusesOrder([1, 2, 3], [{ field: 'body' }]);
    await refusesOrder('null', [{ field: 'body' }]);
    await refused(
      customer.post('/orders', '{"items": ['),
      expectProblem(400, {
        type: 'validation-failed',
        errors: [{ field: 'body', message: 'malformed JSON, or not an object or array' }],
      }),
    );
  });

  it('answers 413 to a body over 100 kB (a 1 MB note) and 415 to a body that is not JSON', async () => {
    await refused(
      customer.post('/orders', {
        items: [{ productId: '1001', quantity: 1 }],
        shippingAddressId: addressId,
        note: 'x'.repeat(1024 * 1024),
      }),
      expectProblem(413, { type: 'payload-too-large' }),
    );
    await refused(
      customer.post('/orders', 'two espresso cups please', { 'Content-Type': 'text/plain' }),
      expectProblem(415, { type: 'unsupported-media-type' }),
    );
  });

  it('takes JSON as UTF-8 only: 415 for any other charset declared, whatever the bytes', async () => {
    const order = JSON.stringify({
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: addressId,
    });
    const placeAs = (contentType: string) => customer.post('/orders', order, { 'Content-Type': contentType });
    for (const charset of ['utf-16', 'UTF-16LE', 'utf-32', 'latin1', 'iso-8859-1', 'utf8', '']) {
      await refused(
        placeAs(`application/json; charset=${charset}`),
        expectProblem(415, {
          type: 'unsupported-media-type',
          detail: 'A JSON body is UTF-8: send charset=utf-8, or no charset.',
        }),
      );
    }
    for (const contentType of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"']) {
      const { response } = await api.given().when(placeAs(contentType)).then(expectResponse(201));
      expect(await api.eventsOf(orderStreamName(response.json<OrderBody>().id)), contentType).toMatchObject([
        { type: 'OrderPlaced', data: { items: [{ productId: '1001', quantity: 1 }] } },
      ]);
    }
  });

  it('answers 401 without a token and 403 to a role that cannot order (auditor)', async () => {
    // No one signed in: the customer's request without its bearer token.
    const anonymous: UserRequest = {
      method: 'POST',
      path: '/orders',
      body: { items: [] },
      from: { id: 'anonymous' },
      send: () => api.driver.request({ method: 'POST', path: '/orders', body: { items: [] } }),
    };
    await refused(
      anonymous,
      expectProblem(401, { type: 'unauthorized' }),
      expectResponse(401, { headers: { 'www-authenticate': 'Bearer realm="order-service"' } }),
    );
    const auditor = await api.signIn(['auditor']);
    await refused(
      auditor.post('/orders', { items: [{ productId: '1001', quantity: 1 }] }),
      expectProblem(403, { type: 'forbidden' }),
    );
  });

  it('lets staff order for themselves, at their own address', async () => {
    const staff = await api.signIn(['staff']);
    const { order } = await placeOrderAs(staff);
    expect(order).toMatchObject({ customerId: staff.id, shippingAddress: anAddress, status: 'pending' });
    expect(await api.eventsOf(orderStreamName(order.id))).toMatchObject([
      {
        type: 'OrderPlaced',
        data: { customerId: staff.id },
        metadata: { actor: { userId: staff.id, roles: ['staff'] } },
      },
    ]);
  });
});
