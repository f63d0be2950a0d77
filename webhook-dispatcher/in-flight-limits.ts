import type { Logger } from 'pino';
import type { Delivery } from '../webhooks/deliveries/delivery-queue.ts';
import { lineOf } from './delivery-line.ts';

/** The attempts under way on either path, their lines, and the requests the limits count. */
export const createInFlightLimits = ({
  maxInFlight,
  maxInFlightPerSubscription,
  logger,
  freed,
}: {
  maxInFlight: number;
  maxInFlightPerSubscription: number;
  logger: Logger;
  /** A request or an attempt ended: what waited for the limits may start. */
  freed: () => void;
}) => {
  const inFlight = new Map<string, Promise<void>>();
  /**
   * Requests under way, in all and per subscription: what the limits count. A delivery leaves them once its
   * receiver answered; its line stays busy until it is settled, which is written in batches meanwhile.
   */
  const posting = new Set<string>();
  const perSubscription = new Map<string, number>();
  /** Lines with an attempt under way, on either path. */
  const active = new Set<string>();

  const answered = (delivery: Delivery) => {
    if (!posting.delete(delivery.id)) return;
    const count = (perSubscription.get(delivery.subscriptionId) ?? 1) - 1;
    if (count === 0) perSubscription.delete(delivery.subscriptionId);
    else perSubscription.set(delivery.subscriptionId, count);
    freed();
  };

  /** Runs an attempt: its line is busy and its request counted until it ends; then `after`. */
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
        freed();
      });
    inFlight.set(delivery.id, running);
  };

  return {
    launch,
    /** The receiver answered (or did not, in time): the request no longer counts against the limits. */
    answered,
    free: () => maxInFlight - posting.size,
    /** Whether the limit in all is reached, counting `also` requests about to start. */
    isFull: (also = 0) => posting.size + also >= maxInFlight,
    /** Whether the subscription's limit is reached, counting `also` of its requests about to start. */
    isSaturated: (subscriptionId: string, also = 0) =>
      (perSubscription.get(subscriptionId) ?? 0) + also >= maxInFlightPerSubscription,
    saturatedSubscriptions: () =>
      [...perSubscription].filter(([, n]) => n >= maxInFlightPerSubscription).map(([id]) => id),
    isActive: (line: string) => active.has(line),
    isInFlight: (deliveryId: string) => inFlight.has(deliveryId),
    allEnded: () => Promise.allSettled(inFlight.values()),
  };
};

export type InFlightLimits = ReturnType<typeof createInFlightLimits>;
