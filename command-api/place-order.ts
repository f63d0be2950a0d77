import type { CatalogStore } from '../catalog/catalog.ts';
import { money } from '../domain/money.ts';
import type { OrderLine, PlaceOrder } from '../domain/order/order.ts';
import type { UserStore } from '../identity/users.ts';
import { validationFailed, type FieldError } from '../infrastructure/http/api-error.ts';
import { fieldErrors } from '../infrastructure/http/validation.ts';
import { createOrderBody } from './order-schemas.ts';

const productIdFormat = /^[1-9]\d{0,14}$/;

type Lookups = { catalog: CatalogStore; users: UserStore; currency: string };

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/**
 * POST /orders' body, validated and priced: prices and names copied from the catalogue now, a quantity
 * beyond the product's stock refused, the address copied from the caller's stored ones. References are checked even when the shape has errors, wherever
 * they are well-formed, so that one 400 lists every problem of the request.
 */
export const placeOrderCommand = async (
  { catalog, users, currency }: Lookups,
  request: { body: unknown; customerId: string; orderId: string; placedAt: string },
): Promise<PlaceOrder> => {
  const parsed = createOrderBody.safeParse(request.body);
  const errors: FieldError[] = parsed.success ? [] : fieldErrors(parsed.error);
  const reported = new Set(errors.map((error) => error.field));
  const report = (field: string, message: string) => {
    if (!reported.has(field)) errors.push({ field, message });
  };

  const raw = asRecord(request.body);
  const rawItems = Array.isArray(raw['items']) ? raw['items'] : [];
  const lines = await Promise.all(
    rawItems.map(async (item, index): Promise<OrderLine | undefined> => {
      const { productId, quantity } = asRecord(item);
      if (typeof productId !== 'string') return undefined;
      const product = productIdFormat.test(productId) ? await catalog.getProduct(Number(productId)) : null;
      if (!product) {
        report(`items[${index}].productId`, 'no product with this id');
        return undefined;
      }
      // Orders do not reserve stock (the admin backend owns it): only the level at this moment counts.
      if (product.stock !== null && typeof quantity === 'number' && quantity > product.stock) {
        report(
          `items[${index}].quantity`,
          product.stock === 0 ? 'sold out: 0 available' : `only ${product.stock} available`,
        );
      }
      return {
        productId,
        productName: product.name,
        quantity: quantity as number,
        unitPrice: money(product.priceMinor, currency),
      };
    }),
  );

  const addressId = raw['shippingAddressId'];
  const address =
    typeof addressId === 'string' && !reported.has('shippingAddressId')
      ? await users.findAddress(request.customerId, addressId)
      : null;
  if (typeof addressId === 'string' && !address)
    report('shippingAddressId', 'you have no stored address with this id');

  if (!parsed.success || errors.length > 0 || !address) throw validationFailed(errors);
  const { street, city, postalCode, country } = address;
  return {
    type: 'PlaceOrder',
    data: {
      orderId: request.orderId,
      customerId: request.customerId,
      items: lines as OrderLine[],
      shippingAddress: { street, city, postalCode, country },
      note: parsed.data.note ?? null,
      placedAt: request.placedAt,
    },
  };
};
