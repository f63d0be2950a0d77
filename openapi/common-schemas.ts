import { z } from 'zod';
import { moneySchema, shippingAddressSchema, timestamp } from '../domain/shared/resource-shapes.ts';
import { consistencyTokenFormat } from '../query-api/read-your-writes.ts';

// The order's shapes are the domain's (domain/shared/resource-shapes.ts); the document names them here too.
export { moneySchema, shippingAddressSchema, timestamp };

/**
 * Response shapes shared by several operations, as the API sends them. Objects are strict: a member the
 * document does not name fails the response validation of the HTTP tests. `id` makes each a named component.
 */

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

/** The page variant of the paginated envelope; `beside` names members next to `data`. */
export const pageOf = (item: z.ZodType, id: string, beside: z.ZodRawShape = {}) =>
  z
    .strictObject({
      meta: z.strictObject({ total: z.int().min(0), page: z.int().min(1), perPage: z.int().min(1) }),
      data: z.array(item),
      ...beside,
    })
    .meta({ id, description: 'Paginated envelope, page variant (`?page=&perPage=`).' });

/** The cursor variant of the paginated envelope; `beside` names members next to `data`. */
export const cursorPageOf = (item: z.ZodType, id: string, beside: z.ZodRawShape = {}) =>
  z
    .strictObject({
      meta: z.strictObject({ perPage: z.int().min(1) }),
      links: cursorLinksSchema,
      data: z.array(item),
      ...beside,
    })
    .meta({ id, description: 'Paginated envelope, cursor variant (`?cursor=&perPage=`).' });

export const consistencyTokenHeader = z.object({
  'Consistency-Token': z.string().regex(consistencyTokenFormat).optional().meta({
    description:
      'A Consistency-Token a command response sent you, unchanged: the query waits (bounded, default 5 s) until the read models have reached it, then answers; past the bound, 503 with Retry-After. A token sent to another caller, altered or built is answered 400 (`validation-failed` on `Consistency-Token`), the same whatever position it names.',
  }),
});
