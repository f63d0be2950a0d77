import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '../../catalog/catalog.ts';
import { orderStreamName } from '../../domain/orders/order.ts';
import type { ProblemDetails } from '../../infrastructure/http/problem-details.ts';
import { expectProblem, expectResponse } from '../support/api-expectations.ts';
import {
  apiSpecification,
  type ApiSpecification,
  type ApiUser,
  type Check,
} from '../support/api-specification.ts';
import { anAddress, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let api: ApiSpecification;
let customer: ApiUser;
let addressId: string;
let products: Product[];

beforeAll(async () => {
  // Refresh at once, so that an import made in a test is what the next order is checked against.
  service = await startTestService({ CATALOG_REFRESH_INTERVAL_MS: '0' });
  api = apiSpecification(service);
  customer = await api.signIn(['customer']);
  const address = await customer.post('/users/me/addresses', anAddress).send();
  if (address.status !== 201) throw new Error(`address: ${address.status} ${address.text}`);
  addressId = address.json<{ id: string }>().id;
  products = await service.catalog.listProducts();
});
afterAll(async () => {
  await api?.close();
  await service?.stop();
});

/** Products of the demo catalogue by their stock, read from the store, each used by one test only. */
const withStock = (accept: (stock: number | null) => boolean, skip = 0): Product => {
  const found = products.filter((product) => accept(product.stock))[skip];
  if (!found) throw new Error('the demo catalogue has no such product');
  return found;
};
const line = (product: Product, quantity: number) => ({ productId: String(product.id), quantity });

/** The customer's order of these lines, to its stored address unless told otherwise. */
const anOrderOf = (items: unknown[], shippingAddressId: string = addressId) =>
  customer.post('/orders', { items, shippingAddressId });

/** 400 validation-failed whose errors are these, in any order. */
const expectErrors =
  (...errors: NonNullable<ProblemDetails['errors']>): Check =>
  (outcome) => {
    expectProblem(400, { type: 'validation-failed', instance: '/orders' })(outcome);
    const actual = outcome.response.json<ProblemDetails>().errors;
    expect(actual).toEqual(expect.arrayContaining(errors));
    expect(actual).toHaveLength(errors.length);
  };

/** The order is refused as `checks` say, and nothing is appended to the log. */
const refuses = async (items: unknown[], check: Check, shippingAddressId?: string) => {
  const log = await api.eventLog();
  const head = await log.headPosition();
  await api.given().when(anOrderOf(items, shippingAddressId)).then(check);
  expect(await log.headPosition(), 'the head of the log: nothing appended').toBe(head);
};

/** The order is placed: 201, and its stream holds the OrderPlaced of these lines. */
const places = async (items: { productId: string; quantity: number }[]) => {
  const { response } = await api.given().when(anOrderOf(items)).then(expectResponse(201));
  const order = response.json<OrderBody>();
  expect(order.items).toEqual(items.map((item) => expect.objectContaining(item)));
  expect(await api.eventsOf(orderStreamName(order.id))).toMatchObject([
    { type: 'OrderPlaced', data: { items: items.map((item) => expect.objectContaining(item)) } },
  ]);
  return order;
};

describe('POST /orders against the stock available at that moment', () => {
  it('refuses a line asking for more than the stock, naming what is available', async () => {
    const low = withStock((stock) => stock !== null && stock > 0 && stock < 5);
    await refuses(
      [line(low, low.stock! + 1)],
      expectErrors({ field: 'items[0].quantity', message: `only ${low.stock} available` }),
    );
  });

  it('takes a line asking for exactly the stock, and reserves nothing: the same order goes through again', async () => {
    const low = withStock((stock) => stock !== null && stock > 0 && stock < 5, 1);
    for (let n = 0; n < 2; n++) await places([line(low, low.stock!)]);
    expect((await service.catalog.getProduct(low.id))?.stock).toBe(low.stock);
  });

  it('refuses any quantity of a sold-out product', async () => {
    const soldOut = withStock((stock) => stock === 0);
    await refuses(
      [line(soldOut, 1)],
      expectErrors({ field: 'items[0].quantity', message: 'sold out: 0 available' }),
    );
  });

  it('takes any quantity of a product whose stock is not tracked', async () => {
    const untracked = withStock((stock) => stock === null);
    await places([line(untracked, 1000)]);
  });

  it('reports the stock beside every other problem of the request, at once', async () => {
    const soldOut = withStock((stock) => stock === 0);
    const low = withStock((stock) => stock !== null && stock > 0 && stock < 5);
    await refuses(
      [line(soldOut, 2), { productId: '999999', quantity: 1 }, line(low, 0), line(low, 1)],
      expectErrors(
        { field: 'items[0].quantity', message: 'sold out: 0 available' },
        { field: 'items[1].productId', message: 'no product with this id' },
        { field: 'items[2].quantity', message: 'must be greater than 0' },
        { field: 'items[3].productId', message: expect.stringMatching(/more than once/) },
        { field: 'shippingAddressId', message: 'you have no stored address with this id' },
      ),
      '00000000-0000-4000-8000-000000000000',
    );
  });

  it('checks the stock the catalogue holds now: an import lowering it applies to the next order', async () => {
    const plenty = withStock((stock) => stock !== null && stock >= 10, 3);
    await service.catalog.importCatalog(
      { products: [{ ...plenty, stock: 1 }], categories: [] },
      { replace: false, at: new Date() },
    );
    await refuses(
      [line(plenty, 2)],
      expectErrors({ field: 'items[0].quantity', message: 'only 1 available' }),
    );
    await service.catalog.importCatalog(
      { products: [plenty], categories: [] },
      { replace: false, at: new Date() },
    );
    await places([line(plenty, 2)]);
  });
});
