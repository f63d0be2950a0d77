import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '../../catalog/catalog.ts';
import { problemOf } from '../support/http.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let customer: OrderActor;
let addressId: string;
let products: Product[];

beforeAll(async () => {
  service = await startTestService({ CATALOG_REFRESH_INTERVAL_MS: '0' });
  customer = await orderActor(service, ['customer']);
  addressId = await customer.addAddress();
  products = await service.catalog.listProducts();
});
afterAll(() => service.stop());

/** Products of the demo catalogue by their stock, read from the store, each used by one test only. */
const withStock = (accept: (stock: number | null) => boolean, skip = 0): Product => {
  const found = products.filter((product) => accept(product.stock))[skip];
  if (!found) throw new Error('the demo catalogue has no such product');
  return found;
};
const line = (product: Product, quantity: number) => ({ productId: String(product.id), quantity });

const refusal = async (items: unknown[], shippingAddressId: string = addressId) => {
  const response = await customer.post('/orders', { items, shippingAddressId });
  expect(response.status).toBe(400);
  return (await problemOf(response)).errors;
};

describe('POST /orders against the stock available at that moment', () => {
  it('refuses a line asking for more than the stock, naming what is available', async () => {
    const low = withStock((stock) => stock !== null && stock > 0 && stock < 5);
    expect(await refusal([line(low, low.stock! + 1)])).toEqual([
      { field: 'items[0].quantity', message: `only ${low.stock} available` },
    ]);
  });

  it('takes a line asking for exactly the stock, and reserves nothing: the same order goes through again', async () => {
    const low = withStock((stock) => stock !== null && stock > 0 && stock < 5, 1);
    for (let n = 0; n < 2; n++) {
      const response = await customer.post('/orders', {
        items: [line(low, low.stock!)],
        shippingAddressId: addressId,
      });
      expect(response.status).toBe(201);
    }
    expect((await service.catalog.getProduct(low.id))?.stock).toBe(low.stock);
  });

  it('refuses any quantity of a sold-out product', async () => {
    const soldOut = withStock((stock) => stock === 0);
    expect(await refusal([line(soldOut, 1)])).toEqual([
      { field: 'items[0].quantity', message: 'sold out: 0 available' },
    ]);
  });

  it('takes any quantity of a product whose stock is not tracked', async () => {
    const untracked = withStock((stock) => stock === null);
    const response = await customer.post('/orders', {
      items: [line(untracked, 1000)],
      shippingAddressId: addressId,
    });
    expect(response.status).toBe(201);
  });

  it('reports the stock beside every other problem of the request, at once', async () => {
    const soldOut = withStock((stock) => stock === 0);
    const low = withStock((stock) => stock !== null && stock > 0 && stock < 5);
    const errors = await refusal(
      [line(soldOut, 2), { productId: '999999', quantity: 1 }, line(low, 0), line(low, 1)],
      '00000000-0000-4000-8000-000000000000',
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'items[0].quantity', message: 'sold out: 0 available' },
        { field: 'items[1].productId', message: 'no product with this id' },
        { field: 'items[2].quantity', message: 'must be greater than 0' },
        { field: 'items[3].productId', message: expect.stringMatching(/more than once/) },
        { field: 'shippingAddressId', message: 'you have no stored address with this id' },
      ]),
    );
    expect(errors).toHaveLength(5);
  });

  it('checks the stock the catalogue holds now: an import lowering it applies to the next order', async () => {
    const plenty = withStock((stock) => stock !== null && stock >= 10, 3);
    await service.catalog.importCatalog(
      { products: [{ ...plenty, stock: 1 }], categories: [] },
      { replace: false, at: new Date() },
    );
    expect(await refusal([line(plenty, 2)])).toEqual([
      { field: 'items[0].quantity', message: 'only 1 available' },
    ]);
    await service.catalog.importCatalog(
      { products: [plenty], categories: [] },
      { replace: false, at: new Date() },
    );
    const response = await customer.post('/orders', {
      items: [line(plenty, 2)],
      shippingAddressId: addressId,
    });
    expect(response.status).toBe(201);
  });
});
