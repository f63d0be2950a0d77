import { z } from 'zod';
import type { CatalogStore, Product } from '../../catalog/catalog.ts';
import type { PlaceOrder } from '../../domain/orders/order.ts';
import { money } from '../../domain/shared/money.ts';
import { sealedStoredAddress } from '../../identity/user-resource.ts';
import type { UserStore } from '../../identity/users.ts';
import { fieldErrors, type FieldError } from '../../infrastructure/validation/field-errors.ts';
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

/** POST /orders' body, its shape alone (no lookups): what the API document shows. */
export const createOrderBody = z.strictObject({
  items: z
    .array(
      z.strictObject({
        productId: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
        quantity,
      }),
      { error: 'must be an array of items' },
    )
    .min(1, 'an order needs at least one item')
    .max(orderLimits.maxItems, `at most ${orderLimits.maxItems} items`),
  shippingAddressId: z.uuid('must be the id of one of your stored addresses'),
  note: z
    .string()
    .max(orderLimits.maxNoteLength, `must be at most ${orderLimits.maxNoteLength} characters`)
    .nullable()
    .optional(),
});

type Lookups = { catalog: Pick<CatalogStore, 'getProduct'>; users: Pick<UserStore, 'findAddress'> };

/** A request whose references were found: the products (with their stock now) and the address, sealed. */
export type PlaceOrderRequest = {
  lines: { product: Product; quantity: number }[];
  address: ReturnType<typeof sealedStoredAddress>;
  note: string | null;
};

export type ResolvedOrder = { ok: true; request: PlaceOrderRequest } | { ok: false; errors: FieldError[] };

/** The parts of a body that are well-formed on their own, whatever is wrong elsewhere in it. */
const wellFormedParts = (body: unknown) => {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  // Too many lines is the answer on its own: no line is looked up then.
  const items =
    Array.isArray(record['items']) && record['items'].length <= orderLimits.maxItems
      ? (record['items'] as unknown[])
      : [];
  const lines = items.map((item) => {
    const { productId, quantity: wanted } = (item ?? {}) as { productId?: unknown; quantity?: unknown };
    return {
      productId: typeof productId === 'string' && productIdFormat.test(productId) ? Number(productId) : null,
      namesAProduct: typeof productId === 'string' && productId.length > 0 && productId.length <= 64,
      quantity: typeof wanted === 'number' && quantityProblem(wanted) === null ? wanted : null,
    };
  });
  const addressId = z.uuid().safeParse(record['shippingAddressId']);
  return { lines, addressId: addressId.success ? addressId.data : null };
};

/**
 * POST /orders' body for a customer: its shape checked, then its references looked up in one place (each
 * product in the catalogue, with its stock at this moment; the address among the customer's stored ones),
 * so that one answer lists every problem of the request at once. Orders do not reserve stock (the admin
 * backend owns it): only the level now counts.
 */
export const resolveOrderRequest = async (
  { catalog, users }: Lookups,
  customerId: string,
  body: unknown,
): Promise<ResolvedOrder> => {
  const shape = createOrderBody.safeParse(body);
  const errors: FieldError[] = shape.success ? [] : fieldErrors(shape.error);
  const parts = wellFormedParts(body);
  const [products, address] = await Promise.all([
    Promise.all(
      parts.lines.map((line) => (line.productId === null ? null : catalog.getProduct(line.productId))),
    ),
    parts.addressId === null ? null : users.findAddress(customerId, parts.addressId),
  ]);
  const seen = new Set<number>();
  parts.lines.forEach((line, index) => {
    const product = products[index];
    if (!product) {
      if (line.namesAProduct)
        errors.push({ field: `items[${index}].productId`, message: 'no product with this id' });
      return;
    }
    if (seen.has(product.id)) {
      errors.push({
        field: `items[${index}].productId`,
        message: 'product appears more than once; raise the quantity instead',
      });
    }
    seen.add(product.id);
    if (line.quantity === null || product.stock === null || line.quantity <= product.stock) return;
    errors.push({
      field: `items[${index}].quantity`,
      message: product.stock === 0 ? 'sold out: 0 available' : `only ${product.stock} available`,
    });
  });
  if (parts.addressId !== null && !address) {
    errors.push({ field: 'shippingAddressId', message: 'you have no stored address with this id' });
  }
  if (!shape.success || errors.length > 0 || !address) return { ok: false, errors };
  return {
    ok: true,
    request: {
      lines: shape.data.items.map((item, index) => ({ product: products[index]!, quantity: item.quantity })),
      // Copied sealed: the order never holds the address in the clear either.
      address: sealedStoredAddress(customerId, address),
      note: shape.data.note ?? null,
    },
  };
};

/** The command a valid request asks for: prices and names as the catalogue has them now, the address copied. */
export const placeOrderCommand = (
  request: PlaceOrderRequest,
  order: { orderId: string; customerId: string; placedAt: string; currency: string },
): PlaceOrder => {
  const { street, city, postalCode, country } = request.address;
  const items = request.lines.map(({ product, quantity }) => ({
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
      note: request.note,
      placedAt: order.placedAt,
    },
  };
};
