import { z } from 'zod';
import { isCurrencyCode } from '../domain/shared/money.ts';

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

/** The caches in front of a process that serves the catalogue (the embedded default, the query API). */
export const cachePurgeEnvironment = {
  CACHE_PURGE_URLS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    )
    .refine(
      (urls) => urls.every((url) => z.url({ protocol: /^https?$/ }).safeParse(url).success),
      'must be http(s) URLs, comma-separated',
    )
    .optional()
    .describe(
      'Caches to purge when the catalogue changes (comma-separated URLs; none by default): each gets ' +
        '`PURGE /` with `xkey-purge: <the Surrogate-Keys whose responses changed>`, as ' +
        'deploy/varnish/default.vcl takes it. Every process serving the catalogue needs the same list.',
    ),
};
