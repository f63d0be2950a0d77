import { Counter, type Registry } from 'prom-client';

/**
 * What became of one delivery attempt: succeeded (2xx), failed (retried later), dead-lettered (failed with
 * no retry left), gone (410: the subscription is disabled), cancelled (the subscription is inactive).
 */
export type DeliveryOutcome = 'succeeded' | 'failed' | 'dead-lettered' | 'gone' | 'cancelled';

export type DeliveryMetrics = { attempted(outcome: DeliveryOutcome): void };

/** webhook_deliveries_total{outcome}: one count per attempt the dispatcher records. */
export const createDeliveryMetrics = (registry: Registry): DeliveryMetrics => {
  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: succeeded, failed, dead-lettered, gone, cancelled.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return { attempted: (outcome) => deliveries.inc({ outcome }) };
};
