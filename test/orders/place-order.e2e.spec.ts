import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, problemOf } from '../support/http.ts';
import { anAddress, orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let customer: OrderActor;
let addressId: string;

beforeAll(async () => {
  service = await startTestService();
  customer = await orderActor(service, ['customer']);
  addressId = await customer.addAddress();
});
afterAll(async () => service.stop());

/** How many events the whole log holds: what "nothing appended" is checked against. */
const logSize = async () => {
  const auditor = await orderActor(service, ['auditor']);
  let count = 0;
  let next: string | null = '/audit/events?limit=1000';
  while (next) {
    const page = (await (await auditor.get(next)).json()) as {
      links: { next: string | null };
      data: unknown[];
    };
    count += page.data.length;
    next = page.links.next;
  }
  return count;
};

const expectValidationErrors = async (
  body: unknown,
  errors: { field: string; message?: string | RegExp }[],
) => {
  const before = await logSize();
  const response = await customer.post('/orders', body);
  expect(response.status).toBe(400);
  const problem = await problemOf(response);
  expect(problem.type).toBe('https://orders.example/problems/validation-failed');
  expect(problem.instance).toBe('/orders');
  expect(problem.errors?.map((error) => error.field).sort()).toEqual(
    errors.map((error) => error.field).sort(),
  );
  for (const expected of errors) {
    if (expected.message === undefined) continue;
    const actual = problem.errors!.find((error) => error.field === expected.field)!;
    expect(actual.message).toMatch(expected.message);
  }
  expect(await logSize()).toBe(before);
};

describe('POST /orders: given a customer with a stored address', () => {
  it('creates the order: 201, Location, the order priced from the catalogue, ETag and Consistency-Token', async () => {
    const response = await customer.post('/orders', {
      items: [
        { productId: '1001', quantity: 2 },
        { productId: '1002', quantity: 1 },
      ],
      shippingAddressId: addressId,
      note: 'Ring twice',
    });
    expect(response.status).toBe(201);
    const order = (await response.json()) as OrderBody;
    expect(response.headers.get('location')).toBe(`/orders/${order.id}`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    expect(response.headers.get('consistency-token')).toMatch(/^\d+\.[\w-]{22}$/);
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

    const read = await customer.get(`/orders/${order.id}`, {
      'Consistency-Token': response.headers.get('consistency-token')!,
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(response.headers.get('etag'));
    expect(await read.json()).toEqual(order);
  });

  it('names each new order with a UUIDv7, so that ids follow the order in which orders were placed', async () => {
    const millisecondsOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    const placed: { id: string; from: number; to: number }[] = [];
    for (let n = 0; n < 3; n++) {
      const from = Date.now();
      const response = await customer.post('/orders', {
        items: [{ productId: '1001', quantity: 1 }],
        shippingAddressId: addressId,
      });
      const to = Date.now();
      expect(response.status).toBe(201);
      placed.push({ id: ((await response.json()) as OrderBody).id, from, to });
    }
    for (const { id, from, to } of placed) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(millisecondsOf(id)).toBeGreaterThanOrEqual(from);
      expect(millisecondsOf(id)).toBeLessThanOrEqual(to);
    }
  });

  it('keeps the prices and names of the moment of ordering when the catalogue changes later', async () => {
    const { order, consistencyToken } = await customer.placeOrder([{ productId: '1003', quantity: 1 }]);
    const [product] = (await service.catalog.listProducts()).filter((p) => p.id === 1003);
    await service.catalog.importCatalog(
      { products: [{ ...product!, name: 'Renamed kettle', priceMinor: 1 }], categories: [] },
      { replace: false, at: new Date() },
    );
    const read = await customer.get(`/orders/${order.id}`, { 'Consistency-Token': consistencyToken });
    const stored = (await read.json()) as OrderBody;
    expect(stored.items[0]).toMatchObject({ productName: 'Pour-over kettle', unitPrice: { amount: 49.95 } });
  });

  it('refuses an order without items, with an errors entry on items', async () => {
    await expectValidationErrors({ items: [], shippingAddressId: addressId }, [
      { field: 'items', message: 'an order needs at least one item' },
    ]);
  });

  it('refuses quantities that are zero, negative, fractional, too large or not numbers, each at its index', async () => {
    await expectValidationErrors(
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
    await expectValidationErrors(
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
    const other = await orderActor(service, ['customer']);
    const theirAddress = await other.addAddress();
    await expectValidationErrors(
      { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: theirAddress },
      [{ field: 'shippingAddressId', message: 'you have no stored address with this id' }],
    );
  });

  it('refuses duplicate product lines, more than 100 items, over-long notes, ids that are not UUIDs', async () => {
    await expectValidationErrors(
      {
        items: [
          { productId: '1001', quantity: 1 },
          { productId: '1001', quantity: 2 },
        ],
        shippingAddressId: addressId,
      },
      [{ field: 'items[1].productId', message: /more than once/ }],
    );
    await expectValidationErrors(
      {
        items: Array.from({ length: 101 }, (_, index) => ({
          productId: String(1001 + (index % 30)), // products in stock: only the count is wrong
          quantity: 1,
        })),
        shippingAddressId: addressId,
      },
      [{ field: 'items', message: 'at most 100 items' }],
    );
    await expectValidationErrors(
      { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: addressId, note: 'x'.repeat(1001) },
      [{ field: 'note', message: 'must be at most 1000 characters' }],
    );
    await expectValidationErrors({ items: [{ productId: '1001', quantity: 1 }], shippingAddressId: 'home' }, [
      { field: 'shippingAddressId' },
    ]);
  });

  it('refuses wrong types and non-object bodies with a 400, never a 500', async () => {
    await expectValidationErrors({ items: 'lots', shippingAddressId: 7, note: 3 }, [
      { field: 'items' },
      { field: 'shippingAddressId' },
      { field: 'note' },
    ]);
    await expectValidationErrors([1, 2, 3], [{ field: 'body' }]);
    await expectValidationErrors('null', [{ field: 'body' }]);
    const malformed = await postJson(`${service.url}/orders`, '{"items": [', customer.auth);
    expect(malformed.status).toBe(400);
    expect((await problemOf(malformed)).errors).toEqual([
      { field: 'body', message: 'malformed JSON, or not an object or array' },
    ]);
  });

  it('answers 413 to a body over 100 kB (a 1 MB note) and 415 to a body that is not JSON', async () => {
    const huge = await customer.post('/orders', {
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: addressId,
      note: 'x'.repeat(1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect((await problemOf(huge)).type).toBe('https://orders.example/problems/payload-too-large');

    const text = await fetch(`${service.url}/orders`, {
      method: 'POST',
      headers: { ...customer.auth, 'Content-Type': 'text/plain' },
      body: 'two espresso cups please',
    });
    expect(text.status).toBe(415);
  });

  it('takes JSON as UTF-8 only: 415 for any other charset declared, whatever the bytes', async () => {
    const order = JSON.stringify({
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: addressId,
    });
    const placeAs = async (contentType: string) => {
      const response = await fetch(`${service.url}/orders`, {
        method: 'POST',
        headers: { ...customer.auth, 'Content-Type': contentType },
        body: order,
      });
      return {
        status: response.status,
        problem: response.status >= 400 ? await problemOf(response) : undefined,
      };
    };
    const listed = async () =>
      ((await (await customer.get('/orders')).json()) as { meta: { total: number } }).meta.total;
    const before = await listed();
    for (const charset of ['utf-16', 'UTF-16LE', 'utf-32', 'latin1', 'iso-8859-1', 'utf8', '']) {
      const refused = await placeAs(`application/json; charset=${charset}`);
      expect(refused.status, charset).toBe(415);
      expect(refused.problem!.detail).toBe('A JSON body is UTF-8: send charset=utf-8, or no charset.');
    }
    expect(await listed()).toBe(before);
    for (const contentType of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"']) {
      expect((await placeAs(contentType)).status, contentType).toBe(201);
    }
  });

  it('answers 401 without a token and 403 to a role that cannot order (auditor)', async () => {
    const anonymous = await postJson(`${service.url}/orders`, { items: [] });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="order-service"');
    const auditor = await orderActor(service, ['auditor']);
    const refused = await auditor.post('/orders', { items: [{ productId: '1001', quantity: 1 }] });
    expect(refused.status).toBe(403);
  });

  it('lets staff order for themselves, at their own address', async () => {
    const staff = await orderActor(service, ['staff']);
    const { order } = await staff.placeOrder();
    expect(order.customerId).toBe(staff.id);
  });
});
