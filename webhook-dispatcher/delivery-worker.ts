import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import type { WebhookPoster } from '../infrastructure/outbound-http/webhook-poster.ts';
import type { Reveal } from '../infrastructure/personal-data/revealed.ts';
import type { DeliveryLog } from '../webhooks/deliveries/delivery-log.ts';
import type { DeliveryQueue } from '../webhooks/deliveries/delivery-queue.ts';
import { createDeliveryAttempt } from './delivery-attempt.ts';
import type { DeliveryMetrics } from './delivery-metrics.ts';
import { createEnqueueDeliveries } from './enqueue-deliveries.ts';
import { createHeldLines } from './held-lines.ts';
import { createInFlightLimits } from './in-flight-limits.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { createSettlementWriter } from './settlement-writer.ts';
import { createRetryTimes, createStoreLines, createStoreOrderedLines } from './store-lines.ts';
import type { SubscriptionCache } from './subscription-cache.ts';
import { createWakeSignal } from './wake-signal.ts';

export type DeliveryWorkerDeps = {
  queue: DeliveryQueue;
  log: DeliveryLog;
  subscriptions: SubscriptionCache;
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
  /**
   * How often to look in the store when nothing woke the worker: for what another instance left behind
   * (its leases ran out) and for changed subscriptions. Real time, ms.
   */
  safetyPollMs?: number;
  /** While retries are waiting, how often the clock is compared with their time (no store read). Real ms. */
  retryCheckMs?: number;
};

/**
 * Delivers what the retry state holds, each line (a subscription's events of one order) one at a time in
 * order, many lines and subscriptions at once: the scheduling. Every attempt is signed with the
 * subscription's live secrets, logged, and settled (delivery-attempt.ts, attempt-judgement.ts, written in
 * batches by settlement-writer.ts): delivered, retried later, dead-lettered or cancelled.
 *
 * Two paths. What this instance accepted from the bus it holds from the insert on (`enqueue`), in memory, in
 * the bus's order, which is the order of each order's events: an attempt then costs the attempt log and the
 * settlement, and no read. Everything else (retries, what another instance left when it died, lines whose
 * order the store decides) goes through the store: `due`, then a claim. The store is looked at when
 * something wakes the worker, when a retry it knows of falls due, and at a slow safety poll; never on a
 * timer while nothing is due.
 */
export const startDeliveryWorker = ({
  queue,
  log,
  subscriptions,
  now,
  logger,
  instanceId = randomUUID(),
  maxInFlight = 64,
  maxInFlightPerSubscription = 4,
  leaseMs = 60_000,
  safetyPollMs = 5000,
  retryCheckMs = 1000,
  ...attemptDeps
}: DeliveryWorkerDeps) => {
  const signal = createWakeSignal();
  const { wake, isStopped } = signal;
  const limits = createInFlightLimits({
    maxInFlight,
    maxInFlightPerSubscription,
    logger,
    freed: () => held.pump(),
  });
  const writer = createSettlementWriter({ log, queue, now });
  const attempt = createDeliveryAttempt({
    ...attemptDeps,
    subscriptions,
    now,
    logger,
    writer,
    answered: limits.answered,
  });
  const storeOrdered = createStoreOrderedLines();
  const retryTimes = createRetryTimes();
  const scheduling = { queue, attempt, instanceId, leaseMs, now, limits, storeOrdered, retryTimes, wake };
  const held = createHeldLines({ ...scheduling, isStopped });
  const accepted = createEnqueueDeliveries({ ...scheduling, logger, held, isStopped });
  const store = createStoreLines({ ...scheduling, subscriptions, isHeld: held.has, isStopped });

  const running = (async () => {
    let nextSafetyAt = performance.now() + safetyPollMs;
    while (!isStopped()) {
      const safetyDue = performance.now() >= nextSafetyAt;
      const at = now().getTime();
      const retryDue = retryTimes.anyDue(at);
      if (signal.takeWoken() || safetyDue || retryDue) {
        if (retryDue) retryTimes.dropDue(at);
        try {
          if (safetyDue) {
            nextSafetyAt = performance.now() + safetyPollMs;
            await store.safetyPoll();
          }
          await store.fill();
        } catch (error) {
          // A store that fails (a full or read-only disk) is tried again at the next retry check; the loop
          // never ends on an error, or deliveries would stop until a restart.
          logger.error({ err: error }, 'could not read the webhook retry state; trying again');
          retryTimes.add(at);
        }
        continue;
      }
      await signal.sleepUnlessWoken(
        Math.min(nextSafetyAt - performance.now(), retryTimes.any() ? retryCheckMs : Infinity),
      );
    }
  })();

  return {
    enqueue: accepted.enqueue,
    /** Something new may be due in the store (an admin's redelivery): look now. */
    wake,
    /** Learns the lines another instance may have left pending: after the bus moved partitions here. */
    fence: accepted.fence,
    /** Takes no more deliveries, waits for the attempts under way, and lets go of what it held. */
    async stop() {
      signal.stop();
      await running;
      await limits.allEnded();
      await held.releaseAll();
    },
  };
};
