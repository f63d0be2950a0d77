import { z } from 'zod';
import { isCurrencyCode, minorUnitDigits } from '../../domain/shared/money.ts';

/** 1..100 items, quantity 1..1000, note up to 1000 characters, a cancellation reason up to 500. */
export const orderLimits = { maxItems: 100, maxQuantity: 1000, maxNoteLength: 1000, maxReasonLength: 500 };

/** The money object, as a client sends it. */
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

export const cancelBody = z.strictObject({
  reason: z
    .string()
    .max(orderLimits.maxReasonLength, `must be at most ${orderLimits.maxReasonLength} characters`)
    .nullable()
    .optional()
    .meta({
      description:
        'Free text about the order: personal data of its customer, whoever writes it (sealed under the ' +
        'customer’s key; `"[erased]"` once the customer is erased). Returned exactly as sent.',
    }),
});

/** confirm and deliver take no data: an absent body, or an empty object. */
export const noBody = z.strictObject({});

const shipmentDetail = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters');

/** ship: how the shipment can be followed, each detail optional (an absent body: none known). */
export const shipBody = z.strictObject({
  carrier: shipmentDetail.optional(),
  trackingNumber: shipmentDetail.optional(),
  trackingUrl: z
    .url({ protocol: /^https$/, error: 'must be an https URL' })
    .max(200, 'must be at most 200 characters')
    .optional(),
});
