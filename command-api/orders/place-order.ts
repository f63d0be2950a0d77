import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod';
import type { Product } from '../../catalog/catalog.ts';
import type { CatalogStore } from '../../catalog/catalog.ts';
import type { PlaceOrder } from '../../domain/orders/order.ts';
import { money } from '../../domain/shared/money.ts';
import type { UserStore } from '../../identity/users.ts';
import { sealedStoredAddress } from '../../identity/user-resource.ts';
import { orderLimits } from './order-schemas.ts';

const productIdFormat = /^[1-9]\d{0,14}$/;

const isNonEmpty = <T>(values: readonly T[]): values is readonly [T, ...T[]] => values.length > 0;

const quantityProblem = (quantity: number): string | null => {
  if (!Number.isInteger(quantity)) return 'must be an integer';
  if (quantity < 1) return 'must be greater than 0';
  if (quantity > orderLimits.maxQuantity) return `must be at most ${orderLimits.maxQuantity}`;
  return null;
};

/**
 * One check with one message. zod's own int() check would stop every later check of the request, and the
 * list of lines would then go unchecked for duplicates; the document still shows an integer with its bounds.
 */
const quantity = z
  .number({ error: 'must be an integer' })
  .superRefine((value, context) => {
    const message = quantityProblem(value);
    if (message) context.addIssue({ code: 'custom', message });
  })
  .meta({ type: 'integer', minimum: 1, maximum: orderLimits.maxQuantity });

/** The product a line refers to, once found; lines whose product is unknown (or malformed) have none. */
const productIdOf = (item: unknown): number | undefined => {
  const product = (item as { productId?: unknown } | null)?.productId;
  return typeof product === 'object' && product !== null ? (product as Product).id : undefined;
};

type Lookups = { catalog: Pick<CatalogStore, 'getProduct'>; users: Pick<UserStore, 'findAddress'> };

/**
 * POST /orders' body as one schema: its shape, and its references looked up as it is parsed (each product
 * in the catalogue, with its stock at this moment; the address among the caller's stored ones), so that
 * one 400 lists every problem of the request at once, and what comes out is typed: the products and the
 * address themselves. Orders do not reserve stock (the admin backend owns it): only the level now counts.
 *
 * The schema is built once per process (building a zod schema costs more than parsing with it); whose
 * addresses count is the request's, given to `parse` and read by the address lookup from the parse's
 * asynchronous context.
 */
export const placeOrderRequest = ({ catalog, users }: Lookups) => {
  const requestingCustomer = new AsyncLocalStorage<string>();
  const schema = placeOrderSchema({ catalog, users }, () => {
    const customerId = requestingCustomer.getStore();
    if (customerId === undefined) throw new Error('an order request is parsed for a customer');
    return customerId;
  });
  return {
    schema,
    /** Parses a body for a customer with `parseWith` (safeParseAsync, or the HTTP layer's parse). */
    parse: <T>(customerId: string, parseWith: (schema: PlaceOrderSchema) => Promise<T>): Promise<T> =>
      requestingCustomer.run(customerId, () => parseWith(schema)),
  };
};

const placeOrderSchema = ({ catalog, users }: Lookups, customerId: () => string) =>
  z.strictObject({
    items: z
      .array(
        z
          .strictObject({
            productId: z
              .string()
              .min(1, 'must not be empty')
              .max(64, 'must be at most 64 characters')
              .transform(async (productId, context): Promise<Product> => {
                const product = productIdFormat.test(productId)
                  ? await catalog.getProduct(Number(productId))
                  : null;
                if (!product) {
                  context.addIssue({ code: 'custom', message: 'no product with this id' });
                  return z.NEVER;
                }
                return product;
              }),
            quantity,
          })
          .superRefine(({ productId: product, quantity }, context) => {
            if (quantityProblem(quantity)) return; // its own message says what is wrong with it
            if (product.stock === null || quantity <= product.stock) return;
            context.addIssue({
              code: 'custom',
              path: ['quantity'],
              message: product.stock === 0 ? 'sold out: 0 available' : `only ${product.stock} available`,
            });
          }),
        { error: 'must be an array of items' },
      )
      .min(1, 'an order needs at least one item')
      .max(orderLimits.maxItems, `at most ${orderLimits.maxItems} items`)
      .superRefine(
        (items, context) => {
          const seen = new Set<number>();
          items.forEach((item, index) => {
            const id = productIdOf(item);
            if (id === undefined) return;
            if (seen.has(id)) {
              context.addIssue({
                code: 'custom',
                path: [index, 'productId'],
                message: 'product appears more than once; raise the quantity instead',
              });
            }
            seen.add(id);
          });
        },
        // Also when other lines are wrong, so that one answer lists every problem.
        { when: ({ value }) => Array.isArray(value) },
      ),
    shippingAddressId: z
      .uuid('must be the id of one of your stored addresses')
      .transform(async (addressId, context) => {
        const address = await users.findAddress(customerId(), addressId);
        if (!address) {
          context.addIssue({ code: 'custom', message: 'you have no stored address with this id' });
          return z.NEVER;
        }
        // Copied sealed: the order never holds the address in the clear either.
        return sealedStoredAddress(customerId(), address);
      }),
    note: z
      .string()
      .max(orderLimits.maxNoteLength, `must be at most ${orderLimits.maxNoteLength} characters`)
      .nullable()
      .optional(),
  });

type PlaceOrderSchema = ReturnType<typeof placeOrderSchema>;
export type PlaceOrderRequest = z.output<PlaceOrderSchema>;

/** The command a valid request asks for: prices and names as the catalogue has them now, the address copied. */
export const placeOrderCommand = (
  request: PlaceOrderRequest,
  order: { orderId: string; customerId: string; placedAt: string; currency: string },
): PlaceOrder => {
  const { street, city, postalCode, country } = request.shippingAddressId;
  const items = request.items.map(({ productId: product, quantity }) => ({
    productId: String(product.id),
    productName: product.name,
    quantity,
    unitPrice: money(product.priceMinor, order.currency),
  }));
  if (!isNonEmpty(items)) throw new Error('the request schema lets no order without items through');
  return {
    type: 'PlaceOrder',
    data: {
      orderId: order.orderId,
      customerId: order.customerId,
      items,
      shippingAddress: { street, city, postalCode, country },
      note: request.note ?? null,
      placedAt: order.placedAt,
    },
  };
};

/**
 * The body's shape as the API document shows it: the same schema, whose lookups only run when a request is
 * parsed (so none here).
 */
export const createOrderBody = placeOrderSchema(
  {
    catalog: { getProduct: () => Promise.reject(new Error('the document parses no request')) },
    users: { findAddress: () => Promise.reject(new Error('the document parses no request')) },
  },
  () => '',
);
