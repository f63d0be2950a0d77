import { z } from 'zod';
import { isCurrencyCode, minorUnitDigits } from '../domain/money.ts';

/** Limits of decisions.md: 1..100 items, quantity 1..1000, note up to 1000 characters. */
export const orderLimits = { maxItems: 100, maxQuantity: 1000, maxNoteLength: 1000, maxReasonLength: 500 };

export const createOrderBody = z.strictObject({
  items: z
    .array(
      z.strictObject({
        productId: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
        quantity: z
          .number({ error: 'must be an integer' })
          .int('must be an integer')
          .min(1, 'must be greater than 0')
          .max(orderLimits.maxQuantity, `must be at most ${orderLimits.maxQuantity}`),
      }),
      { error: 'must be an array of items' },
    )
    .min(1, 'an order needs at least one item')
    .max(orderLimits.maxItems, `at most ${orderLimits.maxItems} items`)
    .superRefine((items, context) => {
      const seen = new Set<string>();
      items.forEach((item, index) => {
        if (seen.has(item.productId)) {
          context.addIssue({
            code: 'custom',
            path: [index, 'productId'],
            message: 'product appears more than once; raise the quantity instead',
          });
        }
        seen.add(item.productId);
      });
    }),
  shippingAddressId: z.uuid('must be the id of one of your stored addresses'),
  note: z
    .string()
    .max(orderLimits.maxNoteLength, `must be at most ${orderLimits.maxNoteLength} characters`)
    .nullable()
    .optional(),
});
export type CreateOrderBody = z.infer<typeof createOrderBody>;

/** The money object of spec 2.1, as a client sends it. */
export const moneyBody = z
  .strictObject({
    amount: z.number({ error: 'must be a number' }).positive('must be greater than 0').max(1e12, 'too large'),
    currency: z.string().refine(isCurrencyCode, 'must be an ISO 4217 currency code, such as EUR'),
  })
  .superRefine(({ amount, currency }, context) => {
    if (!isCurrencyCode(currency)) return;
    const digits = minorUnitDigits(currency);
    const scale = 10 ** digits;
    if (Math.round(amount * scale) / scale !== amount) {
      context.addIssue({
        code: 'custom',
        path: ['amount'],
        message: `${currency} has at most ${digits} decimal places`,
      });
    }
  });

export const paymentBody = z.strictObject({
  amount: moneyBody,
  reference: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
});
export type PaymentBody = z.infer<typeof paymentBody>;

export const cancelBody = z.strictObject({
  reason: z
    .string()
    .max(orderLimits.maxReasonLength, `must be at most ${orderLimits.maxReasonLength} characters`)
    .nullable()
    .optional(),
});

/** confirm, ship and deliver take no data: an absent body, or an empty object. */
export const noBody = z.strictObject({});
