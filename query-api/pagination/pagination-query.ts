import { z } from 'zod';

export const positiveInt = (max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from 1 to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(max, `must be at most ${max}`))
    // The document says what a client sends: an integer (read from the query string as its decimal digits).
    .meta({ description: `A whole number from 1 to ${max}.`, type: 'integer', minimum: 1, maximum: max });

/** The query parameters of both envelope variants (docs/orders.md). */
export const paginationQuery = {
  page: positiveInt(1_000_000).optional(),
  perPage: positiveInt(100).prefault('20').meta({ default: 20 }),
  cursor: z.string().max(512).optional(),
};
