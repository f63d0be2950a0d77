import { z } from 'zod';

// The shapes the API's resources share, as sent: each resource's one schema (its type, the API document,
// the console's types) is built from them. Objects are strict: a member the schema does not name fails the
// response validation of the HTTP tests. `id` makes each a named component of the API document.

export const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 timestamp, UTC.' });

export const moneySchema = z
  .strictObject({
    amount: z.number().meta({ description: 'Decimal amount in the currency, e.g. 19.99.' }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .meta({ description: 'ISO 4217 currency code.' }),
  })
  .meta({ id: 'Money', description: 'An amount of money: a decimal number and its currency.' });

/** What a personal field reads once its owner is erased. */
export const erasedMark = z.literal('[erased]');

/**
 * An order's copy of the address: personal data, so each field reads `"[erased]"` once its customer has
 * been erased (DELETE /users/{id}).
 */
export const shippingAddressSchema = z
  .strictObject({
    street: z.string(),
    city: z.string(),
    postalCode: z.string(),
    country: z
      .union([z.string().regex(/^[A-Z]{2}$/), erasedMark])
      .meta({ description: 'ISO 3166-1 alpha-2 country code; `"[erased]"` once erased.' }),
  })
  .meta({
    id: 'ShippingAddress',
    description:
      'Where an order goes, as copied when it was placed. Personal data: every field reads `"[erased]"` ' +
      'once the customer has been erased.',
    'x-personal-data': true,
  });

/**
 * Marks a field of a resource as personal data: it leaves the service opened from its sealed form, and
 * reads `"[erased]"` once its owner is erased. The mark is the schema's `x-personal-data` member, which the
 * API document shows and `personalFieldsOf` reads.
 */
export const personal = <Schema extends z.ZodType>(schema: Schema, description: string) =>
  schema.meta({
    description: `${description} Personal data: \`"[erased]"\` once its owner is erased.`,
    'x-personal-data': true,
  });

/** The paths of a strict object's fields marked personal (one level of nesting), such as `shippingAddress`. */
export const personalFieldsOf = (schema: z.ZodObject): string[] =>
  Object.entries(schema.shape)
    .filter(([, field]) => (field as z.ZodType).meta()?.['x-personal-data'] === true)
    .map(([name]) => name);
