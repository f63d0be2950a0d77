import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import type { WebhookPoster } from '../infrastructure/outbound-http/webhook-poster.ts';
import type { Reveal } from '../infrastructure/personal-data/revealed.ts';
import type { DeliveryLog } from '../webhooks/deliveries/delivery-log.ts';
import type {
  Delivery,
  DeliveryQueue,
  NewDelivery,
  Settlement,
} from '../webhooks/deliveries/delivery-queue.ts';
import { createDeliveryAttempt } from './delivery-attempt.ts';
import type { DeliveryMetrics } from './delivery-metrics.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { createSettlementWriter } from './settlement-writer.ts';
import type { SubscriptionCache } from './subscription-cache.ts';

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
  safetyPollMs = 5000,
  retryCheckMs = 1000,
}: DeliveryWorkerDeps) => {
  const inFlight = new Map<string, Promise<void>>();
  /**
   * Requests under way, in all and per subscription: what the limits count. A delivery leaves them once its
   * receiver answered; its line stays busy until it is settled, which is written in batches meanwhile.
   */
  const posting = new Set<string>();
  const perSubscription = new Map<string, number>();
  const answered = (delivery: Delivery) => {
    if (!posting.delete(delivery.id)) return;
    const count = (perSubscription.get(delivery.subscriptionId) ?? 1) - 1;
    if (count === 0) perSubscription.delete(delivery.subscriptionId);
    else perSubscription.set(delivery.subscriptionId, count);
    pump();
  };
  /** The lines this instance holds from acceptance, each in order: delivered without reading the store. */
  const held = new Map<string, Delivery[]>();
  /** Lines with an attempt under way, on either path. */
  const active = new Set<string>();
  /**
   * Lines whose order only the store knows (a retry, another instance's leftovers, an event accepted twice):
   * what is accepted for them is stored unclaimed and goes out through `due`. The value stamps the last
   * acceptance, so that the safety poll frees only lines it saw empty after that.
   */
  const storeOrdered = new Map<string, number>();
  let stamp = 0;
  /** The times of retries this instance settled: the store is read when the clock reaches one. */
  const retryTimes: number[] = [];
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let woken = true;

  const lineOf = ({ subscriptionId, orderingKey }: { subscriptionId: string; orderingKey: string }) =>
    `${subscriptionId}\n${orderingKey}`;
  const leaveToStore = (line: string) => storeOrdered.set(line, ++stamp);

  const wake = () => {
    woken = true;
    wakeUp?.();
  };

  const writer = createSettlementWriter({ log, queue, now });
  const attempt = createDeliveryAttempt({
    subscriptions,
    cipher,
    reveal,
    poster,
    retryPolicy,
    now,
    disableSubscription,
    writer,
    metrics,
    logger,
    answered: (delivery) => answered(delivery),
  });

  const launch = (delivery: Delivery, run: () => Promise<void>, after: () => void) => {
    const line = lineOf(delivery);
    active.add(line);
    posting.add(delivery.id);
    perSubscription.set(delivery.subscriptionId, (perSubscription.get(delivery.subscriptionId) ?? 0) + 1);
    const running = run()
      .catch((error: unknown) => {
        // The lease runs out and the delivery comes up again: nothing is lost.
        logger.error({ err: error, deliveryId: delivery.id }, 'webhook delivery attempt failed to complete');
      })
      .finally(() => {
        inFlight.delete(delivery.id);
        active.delete(line);
        answered(delivery);
        after();
        pump();
      });
    inFlight.set(delivery.id, running);
  };

  /** Hands a held line to the store's order: its leases end, so that whoever is due takes them in order. */
  const handBack = async (line: string, also: readonly Delivery[] = []) => {
    const rest = held.get(line) ?? [];
    held.delete(line);
    leaveToStore(line);
    wake();
    await queue.release(
      [...also, ...rest].map(({ id }) => id),
      instanceId,
    );
  };

  /** An attempt of a held delivery; a retry, a lost lease or a failure hands its line to the store. */
  const attemptHeld = async (delivery: Delivery) => {
    const line = lineOf(delivery);
    // Waited behind slow attempts for half its lease: the store's order from here on, with fresh claims.
    if (delivery.lease!.until - now().getTime() < leaseMs / 2) return handBack(line, [delivery]);
    let result: { settlement: Settlement; settled: boolean } | undefined;
    try {
      result = await attempt(delivery);
    } finally {
      if (!result || !result.settled || result.settlement.status === 'pending') {
        if (result?.settlement.status === 'pending') retryTimes.push(result.settlement.nextAttemptAt);
        await handBack(line);
      }
    }
  };

  /** Starts the heads of held lines, as far as the limits allow. */
  const pump = () => {
    for (const [line, deliveries] of held) {
      if (stopped || posting.size >= maxInFlight) return;
      if (active.has(line)) continue;
      const head = deliveries[0];
      if (!head) {
        held.delete(line);
        continue;
      }
      if ((perSubscription.get(head.subscriptionId) ?? 0) >= maxInFlightPerSubscription) continue;
      deliveries.shift();
      if (deliveries.length === 0) held.delete(line);
      launch(
        head,
        () => attemptHeld(head),
        () => undefined,
      );
    }
  };

  /**
   * Learns which lines have pending deliveries this instance does not hold: an instance taking over the
   * bus's partitions from another (or starting) must not overtake what the other left.
   */
  const fence = async () => {
    for (const pending of await queue.pendingLines()) {
      const line = lineOf(pending);
      if (!held.has(line) && !active.has(line)) leaveToStore(line);
    }
    wake();
  };
  let fenced: Promise<void> = fence();
  fenced.catch(() => undefined);

  /**
   * Makes accepted deliveries durable. Those of lines this instance may deliver in the bus's order are
   * inserted under its lease and held; the others are stored unclaimed and the worker woken for them.
   */
  const enqueue = async (deliveries: readonly NewDelivery[]) => {
    try {
      await fenced;
    } catch {
      fenced = fence();
      await fenced;
    }
    const at = now().getTime();
    const lease = { owner: instanceId, until: at + leaseMs };
    const mine = stopped ? [] : deliveries.filter((delivery) => !storeOrdered.has(lineOf(delivery)));
    const others = deliveries.filter((delivery) => !mine.includes(delivery));
    const claimed = new Set(
      mine.length > 0 ? await queue.enqueue(mine, { owner: instanceId, leaseUntil: lease.until }) : [],
    );
    if (others.length > 0) {
      for (const delivery of others) leaveToStore(lineOf(delivery));
      await queue.enqueue(others);
      wake();
    }
    // Accepted before (the bus handed the batch again): the line is this instance's only if it holds it.
    for (const delivery of mine) {
      const line = lineOf(delivery);
      if (!claimed.has(delivery.id) && !held.has(line) && !active.has(line)) leaveToStore(line);
    }
    const handBackNow: Delivery[] = [];
    for (const delivery of mine) {
      if (!claimed.has(delivery.id)) continue;
      const taken: Delivery = { ...delivery, status: 'pending', attempts: 0, lease };
      const line = lineOf(delivery);
      if (storeOrdered.has(line)) {
        handBackNow.push(taken);
        continue;
      }
      const deliveries = held.get(line) ?? [];
      deliveries.push(taken);
      held.set(line, deliveries);
    }
    if (handBackNow.length > 0) {
      await queue.release(
        handBackNow.map(({ id }) => id),
        instanceId,
      );
      wake();
    }
    pump();
  };

  /** Starts what the store says is due and fits; says whether anything started. */
  const fill = async (): Promise<boolean> => {
    const free = maxInFlight - posting.size;
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
      const line = lineOf(delivery);
      if (stopped || posting.size + chosen.length >= maxInFlight || inFlight.has(delivery.id)) continue;
      if (held.has(line) || active.has(line)) continue;
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
    for (const due of won) {
      const delivery: Delivery = { ...due, lease: { owner: instanceId, until: at + leaseMs } };
      // A line this instance is delivering from the store: what is accepted for it waits its turn there.
      leaveToStore(lineOf(delivery));
      launch(
        delivery,
        async () => {
          const { settlement } = await attempt(delivery);
          if (settlement.status === 'pending') retryTimes.push(settlement.nextAttemptAt);
        },
        wake,
      );
    }
    // A claim that failed leaves its delivery to come up again once its lease (if any) runs out.
    const failed = claims.find((claim) => claim.status === 'rejected');
    if (failed) throw failed.reason;
    return won.length > 0;
  };

  /**
   * The slow safety poll besides `due`: the subscriptions read again, and the lines left to the store that
   * have nothing pending there any more (and were not given anything since) returned to the fast path.
   */
  const safetyPoll = async () => {
    await subscriptions.refresh();
    if (storeOrdered.size === 0) return;
    const before = stamp;
    const pending = new Set((await queue.pendingLines()).map(lineOf));
    for (const [line, at] of storeOrdered) {
      if (at <= before && !pending.has(line) && !active.has(line) && !held.has(line)) {
        storeOrdered.delete(line);
      }
    }
  };

  const sleepUnlessWoken = async (delay: number) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, delay));
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
      if (woken || stopped) wakeUp();
    });
    wakeUp = null;
  };

  const running = (async () => {
    let nextSafetyAt = performance.now() + safetyPollMs;
    while (!stopped) {
      const safetyDue = performance.now() >= nextSafetyAt;
      const at = now().getTime();
      const retryDue = retryTimes.some((time) => time <= at);
      if (woken || safetyDue || retryDue) {
        woken = false;
        if (retryDue) retryTimes.splice(0, retryTimes.length, ...retryTimes.filter((time) => time > at));
        try {
          if (safetyDue) {
            nextSafetyAt = performance.now() + safetyPollMs;
            await safetyPoll();
          }
          await fill();
        } catch (error) {
          // A store that fails (a full or read-only disk) is tried again at the next retry check; the loop
          // never ends on an error, or deliveries would stop until a restart.
          logger.error({ err: error }, 'could not read the webhook retry state; trying again');
          retryTimes.push(at);
        }
        continue;
      }
      await sleepUnlessWoken(
        Math.min(nextSafetyAt - performance.now(), retryTimes.length > 0 ? retryCheckMs : Infinity),
      );
    }
  })();

  return {
    enqueue,
    /** Something new may be due in the store (an admin's redelivery): look now. */
    wake,
    /** Learns the lines another instance may have left pending: after the bus moved partitions here. */
    async fence() {
      fenced = fence();
      await fenced;
    },
    /** Takes no more deliveries, waits for the attempts under way, and lets go of what it held. */
    async stop() {
      stopped = true;
      wake();
      await running;
      await Promise.allSettled(inFlight.values());
      const rest = [...held.values()].flat();
      held.clear();
      await queue.release(
        rest.map(({ id }) => id),
        instanceId,
      );
    },
  };
};
