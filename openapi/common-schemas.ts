import { z } from 'zod';
import { consistencyTokenFormat } from '../query-api/read-your-writes.ts';

/**
 * Response shapes shared by several operations, as the API sends them. Objects are strict: a member the
 * document does not name fails the response validation of the HTTP tests. `id` makes each a named component.
 */

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

export const addressSchema = z
  .strictObject({
    street: z.string(),
    city: z.string(),
    postalCode: z.string(),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .meta({ description: 'ISO 3166-1 alpha-2 country code.' }),
  })
  .meta({ id: 'Address', description: 'A postal address; country is an ISO 3166-1 alpha-2 code.' });

const erasedMark = z.literal('[erased]');

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
  });

export const storedAddressSchema = addressSchema
  .extend({ id: z.uuid() })
  .meta({ id: 'StoredAddress', description: 'One of the caller’s stored addresses.' });

const fieldError = z.strictObject({
  field: z
    .string()
    .meta({ description: 'Where: a body path such as items[0].quantity, or a parameter name.' }),
  message: z.string(),
});

const problemMembers = {
  type: z.url().meta({ description: '`{error_type_base}/<kind>`; following it explains the kind.' }),
  title: z.string(),
  status: z.int(),
  detail: z.string().optional(),
  instance: z.string().optional().meta({ description: 'The request path.' }),
};

export const problemSchema = z
  .looseObject({ ...problemMembers, errors: z.array(fieldError).optional() })
  .meta({
    id: 'Problem',
    description:
      'RFC 9457 problem details, served as application/problem+json. Extension members ride along, such as currentStatus and attemptedAction on invalid-state-transition.',
  });

export const validationProblemSchema = z
  .looseObject({ ...problemMembers, errors: z.array(fieldError).min(1) })
  .meta({
    id: 'ValidationProblem',
    description: 'A 400 problem: errors lists every field that failed, all at once.',
  });

export const problemBodies = { problem: problemSchema, validation: validationProblemSchema };

export const cursorLinksSchema = z
  .strictObject({
    next: z.string().nullable().meta({ description: 'Path of the next page; null on the last one.' }),
    prev: z.string().nullable().meta({ description: 'Path of the previous page; null on the first one.' }),
  })
  .meta({ id: 'CursorLinks' });

/** The page variant of the paginated envelope. */
export const pageOf = (item: z.ZodType, id: string) =>
  z
    .strictObject({
      meta: z.strictObject({ total: z.int().min(0), page: z.int().min(1), perPage: z.int().min(1) }),
      data: z.array(item),
    })
    .meta({ id, description: 'Paginated envelope, page variant (`?page=&perPage=`).' });

/** The cursor variant of the paginated envelope. */
export const cursorPageOf = (item: z.ZodType, id: string) =>
  z
    .strictObject({
      meta: z.strictObject({ perPage: z.int().min(1) }),
      links: cursorLinksSchema,
      data: z.array(item),
    })
    .meta({ id, description: 'Paginated envelope, cursor variant (`?cursor=&perPage=`).' });

export const consistencyTokenHeader = z.object({
  'Consistency-Token': z.string().regex(consistencyTokenFormat).optional().meta({
    description:
      'A Consistency-Token a command response sent you, unchanged: the query waits (bounded, default 5 s) until the read models have reached it, then answers; past the bound, 503 with Retry-After. A token sent to another caller, altered or built is answered 400 (`validation-failed` on `Consistency-Token`), the same whatever position it names.',
  }),
});
