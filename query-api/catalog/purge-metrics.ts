import { Counter, type Registry } from 'prom-client';

/**
 * What became of one purge (one change of the catalogue) at one cache: sent (the cache answered 2xx),
 * failed (it did not, or could not be reached: retried later), abandoned (failed for the last time).
 */
export type PurgeOutcome = 'sent' | 'failed' | 'abandoned';

export type PurgeMetrics = { counted(outcome: PurgeOutcome, count?: number): void };

/** cache_purges_total{outcome}, in the registry of the process that sends the purges. */
export const createPurgeMetrics = (registry: Registry): PurgeMetrics => {
  const purges = new Counter({
    name: 'cache_purges_total',
    help: 'Purges of changed catalogue responses sent to the caches of CACHE_PURGE_URLS, one per change and cache, by outcome: sent, failed (retried later), abandoned.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Every outcome from the start, so that a rate over a counter not yet moved is 0 rather than absent.
  for (const outcome of ['sent', 'failed', 'abandoned'] as const) purges.inc({ outcome }, 0);
  return { counted: (outcome, count = 1) => purges.inc({ outcome }, count) };
};
