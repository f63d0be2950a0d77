import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createOrderedIds } from '../infrastructure/ordered-ids.ts';
import type { WebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/subscription-read-model.ts';
import type { LiveSubscriptionView } from '../projections/webhook-subscriptions/subscription-view.ts';
import type {
  AttemptOutcome,
  DeliveryAttempt,
  DeliveryLog,
} from '../projections/webhook-deliveries/delivery-log.ts';
import type { DeliveryMetrics, DeliveryOutcome } from './delivery-metrics.ts';
import type {
  Delivery,
  DeliveryQueue,
  Settlement,
} from '../projections/webhook-deliveries/delivery-queue.ts';
import type { WebhookPoster, WebhookResponse } from '../infrastructure/outbound-http/webhook-poster.ts';
import { parseRetryAfter, type RetryPolicy } from './retry-policy.ts';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import type { Reveal } from '../infrastructure/personal-data/revealed.ts';
import { signatureHeader } from '../infrastructure/outbound-http/standard-webhooks.ts';

export type DeliveryWorkerDeps = {
  queue: DeliveryQueue;
  log: DeliveryLog;
  subscriptions: WebhookSubscriptionReadModel;
  cipher: SecretCipher;
  /**
   * Opens the personal fields a delivery's body keeps sealed (in the bus and the retry state): each attempt
   * sends what is readable then, so a redelivery after an erasure sends "[erased]".
   */
  reveal: Reveal;
  poster: WebhookPoster;
  retryPolicy: RetryPolicy;
  now: () => Date;
  /** Disables a subscription whose receiver answered 410 Gone (an event on its stream). */
  disableSubscription: (subscriptionId: string, reason: string) => Promise<void>;
  logger: Logger;
  /** Counts each recorded attempt by outcome. */
  metrics: DeliveryMetrics;
  /** Names this instance in leases; instances share the queue. */
  instanceId?: string;
  /** Attempts under way at once, in all. */
  maxInFlight?: number;
  /** Attempts under way at once for one subscription: a slow receiver cannot take every slot. */
  maxInFlightPerSubscription?: number;
  /** How long a claimed delivery stays with this instance; longer than an attempt can take. */
  leaseMs?: number;
  /** How often to look for due deliveries when nothing wakes the worker (other instances, retries). */
  pollIntervalMs?: number;
};

const goneReason = 'The receiver answered 410 Gone.';
const maxStoredBody = 65_536;

type Judgement = {
  outcome: AttemptOutcome;
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
};

const outcomeOf = (judgement: Judgement, settlement: Settlement): DeliveryOutcome => {
  if (judgement.outcome === 'delivered') return 'succeeded';
  if (judgement.outcome === 'gone') return 'gone';
  return settlement.status === 'dead' ? 'dead-lettered' : 'failed';
};

const judge = (response: WebhookResponse, now: Date): Judgement => {
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

/**
 * Delivers what the retry state holds: due deliveries, each line (a subscription's events of one order)
 * one at a time in order, many lines and subscriptions at once. Every attempt is signed with the
 * subscription's live secrets, logged, and settled: delivered, retried later, dead-lettered or cancelled.
 */
export const startDeliveryWorker = ({
  queue,
  log,
  subscriptions,
  cipher,
  reveal,
  poster,
  retryPolicy,
  now,
  disableSubscription,
  logger,
  metrics,
  instanceId = randomUUID(),
  maxInFlight = 64,
  maxInFlightPerSubscription = 4,
  leaseMs = 60_000,
  pollIntervalMs = 1000,
}: DeliveryWorkerDeps) => {
  const inFlight = new Map<string, Promise<void>>();
  const perSubscription = new Map<string, number>();
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let woken = false;

  const wake = () => {
    woken = true;
    wakeUp?.();
  };

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

  const settlementFor = (judgement: Judgement, attempt: number, at: Date): Settlement => {
    if (judgement.outcome === 'delivered') return { status: 'delivered' };
    if (judgement.outcome === 'gone') return { status: 'dead' };
    const decision = retryPolicy.afterFailure(attempt, judgement.retryAfterMs);
    return 'deadLetter' in decision
      ? { status: 'dead' }
      : { status: 'pending', nextAttemptAt: at.getTime() + decision.retryInMs };
  };

  const attemptId = createOrderedIds();
  const record = (
    delivery: Delivery,
    at: Date,
    fields: Partial<DeliveryAttempt> & Pick<DeliveryAttempt, 'outcome'>,
  ) =>
    log.record({
      id: attemptId(),
      deliveryId: delivery.id,
      subscriptionId: delivery.subscriptionId,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      attempt: delivery.attempts + 1,
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

  const attempt = async (delivery: Delivery) => {
    const at = now();
    const subscription = await subscriptions.get(delivery.subscriptionId);
    if (!subscription || subscription.status !== 'active') {
      await record(delivery, at, { outcome: 'cancelled', error: 'the subscription is inactive or removed' });
      metrics.attempted('cancelled');
      await queue.settle(delivery.id, instanceId, { status: 'cancelled' });
      return;
    }
    const body = await reveal(delivery.body);
    const response = await poster.post({
      url: subscription.url,
      headers: signedHeaders(subscription, delivery, body, at),
      body,
    });
    const judgement = judge(response, at);
    const settlement = settlementFor(judgement, delivery.attempts + 1, at);
    await record(delivery, at, {
      durationMs: Math.round(response.durationMs),
      statusCode: judgement.statusCode,
      outcome: judgement.outcome,
      error: judgement.error,
      responseBody: response.outcome === 'responded' ? response.body.slice(0, maxStoredBody) : null,
      responseBodyTruncated: response.outcome === 'responded' && response.bodyTruncated,
      nextAttemptAt:
        settlement.status === 'pending' ? new Date(settlement.nextAttemptAt).toISOString() : null,
      deadLettered: settlement.status === 'dead' && judgement.outcome !== 'gone',
    });
    metrics.attempted(outcomeOf(judgement, settlement));
    await queue.settle(delivery.id, instanceId, settlement);
    if (judgement.outcome !== 'delivered') warnNotDelivered(delivery, judgement, settlement);
    if (judgement.outcome === 'gone') await disableSubscription(subscription.id, goneReason);
  };

  /**
   * A line at warn for every attempt that did not deliver, so that a refused or failing target shows in the
   * log and not only in GET /webhooks/{id}/deliveries: who, which event, the outcome and the reason, and what
   * comes next. Never the URL, the secret, the signature, the payload or the receiver's answer.
   */
  const warnNotDelivered = (delivery: Delivery, judgement: Judgement, settlement: Settlement) => {
    logger.warn(
      {
        subscriptionId: delivery.subscriptionId,
        deliveryId: delivery.id,
        eventId: delivery.eventId,
        eventType: delivery.eventType,
        attempt: delivery.attempts + 1,
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
      judgement.outcome === 'refused' ? 'webhook delivery refused' : 'webhook delivery failed',
    );
  };

  const launch = (delivery: Delivery) => {
    perSubscription.set(delivery.subscriptionId, (perSubscription.get(delivery.subscriptionId) ?? 0) + 1);
    const running = attempt(delivery)
      .catch((error: unknown) => {
        // The lease runs out and the delivery comes up again: nothing is lost.
        logger.error({ err: error, deliveryId: delivery.id }, 'webhook delivery attempt failed to complete');
      })
      .finally(() => {
        inFlight.delete(delivery.id);
        const count = (perSubscription.get(delivery.subscriptionId) ?? 1) - 1;
        if (count === 0) perSubscription.delete(delivery.subscriptionId);
        else perSubscription.set(delivery.subscriptionId, count);
        wake();
      });
    inFlight.set(delivery.id, running);
  };

  /** Starts what is due and fits; says whether anything started. */
  const fill = async (): Promise<boolean> => {
    const free = maxInFlight - inFlight.size;
    if (free <= 0) return false;
    const at = now().getTime();
    const saturated = [...perSubscription]
      .filter(([, n]) => n >= maxInFlightPerSubscription)
      .map(([id]) => id);
    const due = await queue.due({ now: at, limit: free, excludeSubscriptions: saturated });
    // What fits within the limits is chosen first and then claimed all at once: a claim is a round trip
    // or more to the store, and one after the other they would cap deliveries at a few dozen a second.
    const chosen: Delivery[] = [];
    const chosenPerSubscription = new Map<string, number>();
    for (const delivery of due) {
      if (stopped || inFlight.size + chosen.length >= maxInFlight || inFlight.has(delivery.id)) continue;
      const taken =
        (perSubscription.get(delivery.subscriptionId) ?? 0) +
        (chosenPerSubscription.get(delivery.subscriptionId) ?? 0);
      if (taken >= maxInFlightPerSubscription) continue;
      chosen.push(delivery);
      chosenPerSubscription.set(
        delivery.subscriptionId,
        (chosenPerSubscription.get(delivery.subscriptionId) ?? 0) + 1,
      );
    }
    const claims = await Promise.allSettled(
      chosen.map((delivery) =>
        queue.claim(delivery.id, { owner: instanceId, now: at, leaseUntil: at + leaseMs }),
      ),
    );
    const won = chosen.filter((_, index) => {
      const claim = claims[index]!;
      return claim.status === 'fulfilled' && claim.value;
    });
    for (const delivery of won) launch(delivery);
    // A claim that failed leaves its delivery to come up again once its lease (if any) runs out.
    const failed = claims.find((claim) => claim.status === 'rejected');
    if (failed) throw failed.reason;
    return won.length > 0;
  };

  const pause = async (started: boolean) => {
    if (started || woken) return;
    const nextDue = await queue.nextDueAt();
    const untilDue = nextDue === null ? pollIntervalMs : nextDue - now().getTime();
    // A due delivery that did not start waits behind its line's head: the head's end wakes the worker.
    await sleepUnlessWoken(untilDue > 0 ? Math.min(untilDue, pollIntervalMs) : pollIntervalMs);
  };

  const sleepUnlessWoken = async (delay: number) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delay);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
      if (woken || stopped) wakeUp();
    });
    wakeUp = null;
  };

  const running = (async () => {
    while (!stopped) {
      woken = false;
      try {
        const started = await fill();
        if (!stopped) await pause(started);
      } catch (error) {
        // A store that fails (a full or read-only disk) is tried again after a poll interval; the loop
        // never ends on an error, or deliveries would stop until a restart.
        logger.error({ err: error }, 'could not read the webhook retry state; trying again');
        if (!stopped && !woken) await sleepUnlessWoken(pollIntervalMs);
      }
    }
  })();

  return {
    /** Something new may be due: look now rather than at the next poll. */
    wake,
    /** Takes no more deliveries and waits for the attempts under way. */
    async stop() {
      stopped = true;
      wake();
      await running;
      await Promise.allSettled(inFlight.values());
    },
  };
};

export type DeliveryWorker = ReturnType<typeof startDeliveryWorker>;
