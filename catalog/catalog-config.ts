import { z } from 'zod';
import { isCurrencyCode } from '../domain/money.ts';

/** Environment variables of the catalogue, shared by every process that serves or imports it. */
export const catalogEnvironment = {
  CATALOG_CURRENCY: z
    .string()
    .refine(isCurrencyCode, 'must be an ISO 4217 currency code such as EUR')
    .default('EUR')
    .describe('ISO 4217 currency of catalogue prices, and so of orders.'),
  CATALOG_REFRESH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(1000)
    .describe('How often the served catalogue checks for an import made elsewhere (the admin CLI).'),
};
