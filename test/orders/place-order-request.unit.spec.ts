import { describe, expect, it } from 'vitest';
import type { Product } from '../../catalog/catalog.ts';
import { placeOrderCommand, resolveOrderRequest } from '../../command-api/orders/place-order.ts';
import type { StoredAddress } from '../../identity/users.ts';

/**
 * The rules of POST /orders' body: the shape of each line (one schema, no I/O), then, in one place, distinct
 * products, the stock at this moment, the caller's own address; every problem reported at once. Lookups are in memory here; over HTTP the same rules are
 * specified in place-order.e2e.spec.ts and stock-check.e2e.spec.ts.
 */
const product = (id: number, stock: number | null, priceMinor = 1000): Product => ({
  id,
  name: `Product ${id}`,
  priceMinor,
  updatedAt: '2026-01-01T00:00:00Z',
  categoryId: 'c-1',
  stock,
});
const products = new Map([1, 2, 3].map((id) => [id, product(id, null)]));
products.set(4, product(4, 0));
products.set(5, product(5, 3));

const customerId = 'customer-1';
const address: StoredAddress = {
  id: '5d0c3a8e-8f0e-4a53-9a65-0b8c8e3e7f10',
  street: '1 Main Street',
  city: 'Lyon',
  postalCode: '69001',
  country: 'FR',
  createdAt: '2026-01-01T00:00:00Z',
};

const lookups = {
  catalog: { getProduct: (id: number) => Promise.resolve(products.get(id) ?? null) },
  users: {
    findAddress: (owner: string, id: string) =>
      Promise.resolve(owner === customerId && id === address.id ? address : null),
  },
};
const parse = (body: unknown, customer = customerId) => resolveOrderRequest(lookups, customer, body);

/** Every problem of the body, in the order of its fields. */
const problems = async (body: unknown) => {
  const result = await parse(body);
  return result.ok ? [] : result.errors.sort((a, b) => a.field.localeCompare(b.field));
};

const order = (items: unknown[], shippingAddressId = address.id) => ({ items, shippingAddressId });

describe('the POST /orders request', () => {
  it('yields the products and the address themselves, and the command prices them from the catalogue', async () => {
    const parsed = await parse(order([{ productId: '1', quantity: 2 }], address.id));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const request = parsed.request;
    expect(request.lines[0]).toEqual({ product: products.get(1), quantity: 2 });
    expect(request.address).toEqual(address);
    const command = placeOrderCommand(request, {
      orderId: 'o-1',
      customerId,
      placedAt: '2026-02-01T00:00:00Z',
      currency: 'EUR',
    });
    expect(command.data.items).toEqual([
      {
        productId: '1',
        productName: 'Product 1',
        quantity: 2,
        unitPrice: { amountMinor: 1000, currency: 'EUR' },
      },
    ]);
    expect(command.data.shippingAddress).toEqual({
      street: '1 Main Street',
      city: 'Lyon',
      postalCode: '69001',
      country: 'FR',
    });
    expect(command.data.note).toBeNull();
  });

  it('needs at least one item', async () => {
    expect(await problems(order([]))).toEqual([
      { field: 'items', message: 'an order needs at least one item' },
    ]);
  });

  it('reports every bad line at once, with its index', async () => {
    expect(
      await problems(
        order([
          { productId: '1', quantity: 0 },
          { productId: '2', quantity: 1.5 },
          { productId: '1', quantity: 1 },
          { productId: '3', quantity: -1 },
          { productId: '3x', quantity: 1 },
        ]),
      ),
    ).toEqual([
      { field: 'items[0].quantity', message: 'must be greater than 0' },
      { field: 'items[1].quantity', message: 'must be an integer' },
      { field: 'items[2].productId', message: 'product appears more than once; raise the quantity instead' },
      { field: 'items[3].quantity', message: 'must be greater than 0' },
      { field: 'items[4].productId', message: 'no product with this id' },
    ]);
  });

  it('reports the stock only for a quantity that is otherwise acceptable', async () => {
    expect(
      await problems(
        order([
          { productId: '4', quantity: 1 },
          { productId: '5', quantity: 4 },
        ]),
      ),
    ).toEqual([
      { field: 'items[0].quantity', message: 'sold out: 0 available' },
      { field: 'items[1].quantity', message: 'only 3 available' },
    ]);
    expect(await problems(order([{ productId: '5', quantity: 1001 }]))).toEqual([
      { field: 'items[0].quantity', message: 'must be at most 1000' },
    ]);
    expect(await problems(order([{ productId: '5', quantity: 3 }]))).toEqual([]);
  });

  it("accepts only one of the caller's stored addresses", async () => {
    const result = await parse(order([{ productId: '1', quantity: 1 }]), 'customer-2');
    expect(result.ok ? [] : result.errors).toEqual([
      { field: 'shippingAddressId', message: 'you have no stored address with this id' },
    ]);
    expect(await problems(order([{ productId: '1', quantity: 1 }], 'not-a-uuid'))).toEqual([
      { field: 'shippingAddressId', message: 'must be the id of one of your stored addresses' },
    ]);
  });

  it('refuses what is not an array of lines, and unknown fields', async () => {
    expect(await problems({ items: 'x', shippingAddressId: address.id, extra: 1 })).toEqual([
      { field: 'extra', message: 'unknown field' },
      { field: 'items', message: 'must be an array of items' },
    ]);
  });
});
