import type { AttemptOutcome } from '../webhooks/deliveries/delivery-log.ts';
import { nextAttemptNumber, type Delivery, type Settlement } from '../webhooks/deliveries/delivery-queue.ts';
import type { WebhookResponse } from '../infrastructure/outbound-http/webhook-poster.ts';
import type { DeliveryOutcome } from './delivery-metrics.ts';
import { parseRetryAfter, type RetryPolicy } from './retry-policy.ts';

// What an attempt's answer means, as pure functions: its judgement, how the delivery is settled after it,
// what the metrics count and what the log says.

export const goneReason = 'The receiver answered 410 Gone.';

export type Judgement = {
  outcome: AttemptOutcome;
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
};

export const judge = (response: WebhookResponse, now: Date): Judgement => {
  switch (response.outcome) {
    case 'responded': {
      const { status } = response;
      if (status >= 200 && status < 300)
        return { outcome: 'delivered', statusCode: status, error: null, retryAfterMs: null };
      if (status === 410) return { outcome: 'gone', statusCode: status, error: null, retryAfterMs: null };
      const retryAfterMs =
        status === 429 || status === 503 ? parseRetryAfter(response.retryAfter, now) : null;
      const error = status >= 300 && status < 400 ? 'redirects are not followed' : null;
      return { outcome: 'failed', statusCode: status, error, retryAfterMs };
    }
    case 'timeout':
      return {
        outcome: 'timeout',
        statusCode: null,
        error: 'no complete answer in time',
        retryAfterMs: null,
      };
    case 'refused':
      return { outcome: 'refused', statusCode: null, error: response.reason, retryAfterMs: null };
    case 'network-error':
      return { outcome: 'network-error', statusCode: null, error: response.error, retryAfterMs: null };
    default: {
      const unknown: never = response;
      throw new Error(`unknown webhook response ${JSON.stringify(unknown)}`);
    }
  }
};

/** Delivered; dead (gone, or retried too often); or pending again at the policy's next time. */
export const settlementFor = (
  judgement: Judgement,
  attempt: number,
  at: Date,
  retryPolicy: RetryPolicy,
): Settlement => {
  if (judgement.outcome === 'delivered') return { status: 'delivered' };
  if (judgement.outcome === 'gone') return { status: 'dead' };
  const decision = retryPolicy.afterFailure(attempt, judgement.retryAfterMs);
  return 'deadLetter' in decision
    ? { status: 'dead' }
    : { status: 'pending', nextAttemptAt: at.getTime() + decision.retryInMs };
};

export const outcomeOf = (judgement: Judgement, settlement: Settlement): DeliveryOutcome => {
  if (judgement.outcome === 'delivered') return 'succeeded';
  if (judgement.outcome === 'gone') return 'gone';
  return settlement.status === 'dead' ? 'dead-lettered' : 'failed';
};

/**
 * The warning of an attempt that did not deliver, so that a refused or failing target shows in the log and
 * not only in GET /webhooks/{id}/deliveries: who, which event, the outcome and the reason, and what comes
 * next. Never the URL, the secret, the signature, the payload or the receiver's answer.
 */
export const notDeliveredWarning = (delivery: Delivery, judgement: Judgement, settlement: Settlement) => ({
  fields: {
    subscriptionId: delivery.subscriptionId,
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attempt: nextAttemptNumber(delivery),
    outcome: judgement.outcome,
    statusCode: judgement.statusCode,
    reason:
      judgement.outcome === 'gone'
        ? goneReason
        : (judgement.error ?? `the receiver answered ${judgement.statusCode}`),
    next:
      judgement.outcome === 'gone'
        ? 'subscription disabled'
        : settlement.status === 'pending'
          ? `retry at ${new Date(settlement.nextAttemptAt).toISOString()}`
          : 'dead-lettered',
  },
  message: judgement.outcome === 'refused' ? 'webhook delivery refused' : 'webhook delivery failed',
});
