import type { Delivery, DeliveryQueue } from '../webhooks/deliveries/delivery-queue.ts';
import type { createDeliveryAttempt } from './delivery-attempt.ts';
import { lineOf } from './delivery-line.ts';
import type { InFlightLimits } from './in-flight-limits.ts';
import type { SubscriptionCache } from './subscription-cache.ts';

/**
 * Lines whose order only the store knows (a retry, another instance's leftovers, an event accepted twice):
 * what is accepted for them is stored unclaimed and goes out through `due`. The value stamps the last
 * acceptance, so that the safety poll frees only lines it saw empty after that.
 */
export const createStoreOrderedLines = () => {
  const storeOrdered = new Map<string, number>();
  let stamp = 0;
  return {
    leaveToStore: (line: string) => {
      storeOrdered.set(line, ++stamp);
    },
    has: (line: string) => storeOrdered.has(line),
    isEmpty: () => storeOrdered.size === 0,
    stamp: () => stamp,
    /** Returns to the fast path the lines left to the store by `before` (the stamp) that `keep` lets go. */
    free: (before: number, keep: (line: string) => boolean) => {
      for (const [line, at] of storeOrdered) {
        if (at <= before && !keep(line)) storeOrdered.delete(line);
      }
    },
  };
};

/** The times of retries this instance settled: the store is read when the clock reaches one. */
export const createRetryTimes = () => {
  const retryTimes: number[] = [];
  return {
    add: (time: number) => {
      retryTimes.push(time);
    },
    any: () => retryTimes.length > 0,
    anyDue: (at: number) => retryTimes.some((time) => time <= at),
    dropDue: (at: number) => {
      retryTimes.splice(0, retryTimes.length, ...retryTimes.filter((time) => time > at));
    },
  };
};

export type StoreOrderedLines = ReturnType<typeof createStoreOrderedLines>;
export type RetryTimes = ReturnType<typeof createRetryTimes>;

/** The store's path: what `due` says, claimed and attempted; and the slow safety poll. */
export const createStoreLines = ({
  queue,
  subscriptions,
  attempt,
  instanceId,
  leaseMs,
  now,
  limits,
  storeOrdered,
  retryTimes,
  isHeld,
  wake,
  isStopped,
}: {
  queue: Pick<DeliveryQueue, 'due' | 'claim' | 'pendingLines'>;
  subscriptions: Pick<SubscriptionCache, 'refresh'>;
  attempt: ReturnType<typeof createDeliveryAttempt>;
  instanceId: string;
  leaseMs: number;
  now: () => Date;
  limits: InFlightLimits;
  storeOrdered: StoreOrderedLines;
  retryTimes: RetryTimes;
  isHeld: (line: string) => boolean;
  wake: () => void;
  isStopped: () => boolean;
}) => {
  /** Of what is due, what fits within the limits and is not under way or held already. */
  const withinLimits = (due: readonly Delivery[]) => {
    const chosen: Delivery[] = [];
    const chosenPerSubscription = new Map<string, number>();
    for (const delivery of due) {
      const line = lineOf(delivery);
      if (isStopped() || limits.isFull(chosen.length) || limits.isInFlight(delivery.id)) continue;
      if (isHeld(line) || limits.isActive(line)) continue;
      const alsoChosen = chosenPerSubscription.get(delivery.subscriptionId) ?? 0;
      if (limits.isSaturated(delivery.subscriptionId, alsoChosen)) continue;
      chosen.push(delivery);
      chosenPerSubscription.set(delivery.subscriptionId, alsoChosen + 1);
    }
    return chosen;
  };

  /** Starts what the store says is due and fits; says whether anything started. */
  const fill = async (): Promise<boolean> => {
    const free = limits.free();
    if (free <= 0) return false;
    const at = now().getTime();
    const saturated = limits.saturatedSubscriptions();
    const due = await queue.due({ now: at, limit: free, excludeSubscriptions: saturated });
    // What fits within the limits is chosen first and then claimed all at once: a claim is a round trip
    // or more to the store, and one after the other they would cap deliveries at a few dozen a second.
    const chosen = withinLimits(due);
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
      storeOrdered.leaveToStore(lineOf(delivery));
      limits.launch(
        delivery,
        async () => {
          const { settlement } = await attempt(delivery);
          if (settlement.status === 'pending') retryTimes.add(settlement.nextAttemptAt);
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
    if (storeOrdered.isEmpty()) return;
    const before = storeOrdered.stamp();
    const pending = new Set((await queue.pendingLines()).map(lineOf));
    storeOrdered.free(before, (line) => pending.has(line) || limits.isActive(line) || isHeld(line));
  };

  return { fill, safetyPoll };
};
