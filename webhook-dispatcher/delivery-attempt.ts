import type { Logger } from 'pino';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import { createOrderedIds } from '../infrastructure/ordered-ids.ts';
import { signatureHeader } from '../infrastructure/outbound-http/standard-webhooks.ts';
import {
  sentHeaders,
  type WebhookPoster,
  type WebhookRequest,
} from '../infrastructure/outbound-http/webhook-poster.ts';
import { withLegacyTokensSealed } from '../infrastructure/personal-data/field-cipher.ts';
import type { Reveal } from '../infrastructure/personal-data/revealed.ts';
import type { DeliveryAttempt, SentRequest } from '../webhooks/deliveries/delivery-log.ts';
import { nextAttemptNumber, type Delivery, type Settlement } from '../webhooks/deliveries/delivery-queue.ts';
import type { LiveSubscriptionView } from '../webhooks/subscription-view.ts';
import { openWebhookUrl } from '../webhooks/webhook-url.ts';
import { goneReason, judge, notDeliveredWarning, outcomeOf, settlementFor } from './attempt-judgement.ts';
import type { DeliveryMetrics } from './delivery-metrics.ts';
import type { RetryPolicy } from './retry-policy.ts';
import type { createSettlementWriter } from './settlement-writer.ts';
import type { SubscriptionCache } from './subscription-cache.ts';

/** What the receiver's answer body keeps of it in the attempt log. */
const maxStoredBody = 65_536;

/** Each signature of the header cut to its version and first 8 characters: not usable, still told apart. */
export const truncatedSignature = (header: string) =>
  header
    .split(' ')
    .map((signature) => {
      const comma = signature.indexOf(',');
      return `${signature.slice(0, comma + 1)}${signature.slice(comma + 1, comma + 9)}…`;
    })
    .join(' ');

/** What an attempt's log keeps of the request: the sealed body, and the headers with no usable signature. */
const keptRequest = (request: WebhookRequest, sealedBody: string): SentRequest => {
  const headers = sentHeaders(request);
  if (headers['webhook-signature'] !== undefined) {
    headers['webhook-signature'] = truncatedSignature(headers['webhook-signature']);
  }
  return { headers, body: JSON.parse(sealedBody) as unknown };
};

export type AttemptDeps = {
  subscriptions: SubscriptionCache;
  cipher: SecretCipher;
  /** Opens the personal fields a delivery's body keeps sealed: each attempt sends what is readable then. */
  reveal: Reveal;
  poster: WebhookPoster;
  retryPolicy: RetryPolicy;
  now: () => Date;
  /** Disables a subscription whose receiver answered 410 Gone (an event on its stream). */
  disableSubscription: (subscriptionId: string, reason: string) => Promise<void>;
  writer: ReturnType<typeof createSettlementWriter>;
  metrics: DeliveryMetrics;
  logger: Logger;
  /** The receiver answered (or did not, in time): the request no longer counts against the limits. */
  answered: (delivery: Delivery) => void;
};

/**
 * One attempt of a delivery: sign with the subscription's live secrets, post, judge the answer, log it and
 * settle the delivery. Says what it was settled as, and whether the lease still held.
 */
export const createDeliveryAttempt = (deps: AttemptDeps) => {
  const { cipher, now, writer, metrics } = deps;
  const attemptId = createOrderedIds();

  const signedHeaders = (subscription: LiveSubscriptionView, delivery: Delivery, body: string, at: Date) => {
    const secrets = subscription.secrets
      .filter((secret) => secret.expiresAt === null || Date.parse(secret.expiresAt) > at.getTime())
      .map((secret) => cipher.open(secret.sealed, subscription.id));
    const timestamp = Math.floor(at.getTime() / 1000);
    return {
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, { id: delivery.eventId, timestamp, body }),
    };
  };

  const record = (
    delivery: Delivery,
    at: Date,
    fields: Partial<DeliveryAttempt> & Pick<DeliveryAttempt, 'outcome'>,
  ): DeliveryAttempt => ({
    id: attemptId(),
    deliveryId: delivery.id,
    subscriptionId: delivery.subscriptionId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attempt: nextAttemptNumber(delivery),
    attemptedAt: at.toISOString(),
    durationMs: 0,
    statusCode: null,
    error: null,
    responseBody: null,
    responseBodyTruncated: false,
    nextAttemptAt: null,
    deadLettered: false,
    ...fields,
  });

  /** The subscription is gone or inactive: the delivery is cancelled, and so logged. */
  const cancel = async (delivery: Delivery, at: Date) => {
    const settlement: Settlement = { status: 'cancelled' };
    const cancelled = record(delivery, at, {
      outcome: 'cancelled',
      error: 'the subscription is inactive or removed',
    });
    metrics.attempted('cancelled');
    return { settlement, settled: await writer.recordAndSettle(cancelled, delivery, settlement) };
  };

  return async (delivery: Delivery): Promise<{ settlement: Settlement; settled: boolean }> => {
    const at = now();
    const subscription = await deps.subscriptions.get(delivery.subscriptionId);
    if (!subscription || subscription.status !== 'active') return cancel(delivery, at);
    // Sealed in the retry state; one kept by the first personal-data release holds bare tokens.
    const sealedBody = withLegacyTokensSealed(delivery.body);
    const body = await deps.reveal(sealedBody);
    const request: WebhookRequest = {
      url: openWebhookUrl(cipher, subscription.url, subscription.id),
      headers: signedHeaders(subscription, delivery, body, at),
      body,
    };
    const response = await deps.poster.post(request);
    deps.answered(delivery);
    const judgement = judge(response, at);
    const settlement = settlementFor(judgement, delivery.attempts + 1, at, deps.retryPolicy);
    const logged = record(delivery, at, {
      durationMs: Math.round(response.durationMs),
      statusCode: judgement.statusCode,
      outcome: judgement.outcome,
      error: judgement.error,
      responseBody: response.outcome === 'responded' ? response.body.slice(0, maxStoredBody) : null,
      responseBodyTruncated: response.outcome === 'responded' && response.bodyTruncated,
      nextAttemptAt:
        settlement.status === 'pending' ? new Date(settlement.nextAttemptAt).toISOString() : null,
      deadLettered: settlement.status === 'dead' && judgement.outcome !== 'gone',
      request: keptRequest(request, sealedBody),
    });
    const settled = await writer.recordAndSettle(logged, delivery, settlement);
    metrics.attempted(outcomeOf(judgement, settlement));
    if (judgement.outcome !== 'delivered') {
      const warning = notDeliveredWarning(delivery, judgement, settlement);
      deps.logger.warn(warning.fields, warning.message);
    }
    if (judgement.outcome === 'gone') {
      deps.subscriptions.disabled(subscription.id);
      await deps.disableSubscription(subscription.id, goneReason);
    }
    return { settlement, settled };
  };
};
