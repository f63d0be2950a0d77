import type { PendingDelivery } from './delivery-queue.ts';
import type { PendingDeliveryResource } from './pending-delivery-schema.ts';

/**
 * Where a pending delivery stands: `held` while its subscription is disabled (the dispatcher cancels it at
 * its turn, unless the subscription is enabled again first); else `waiting` behind an earlier delivery of
 * its line (the same order to the same subscription) that is not settled yet; else `retrying` once an
 * attempt failed, `scheduled` before its first.
 */
export type PendingState = PendingDeliveryResource['state'];

export const pendingStateOf = (
  { waitingBehind, attemptsMade }: PendingDelivery,
  subscriptionActive: boolean,
): PendingState => {
  if (!subscriptionActive) return 'held';
  if (waitingBehind !== null) return 'waiting';
  return attemptsMade > 0 ? 'retrying' : 'scheduled';
};

/** A pending delivery of a subscription active or not, as GET /webhooks/{id}/deliveries/pending answers it. */
export const pendingDeliveryResource =
  (subscriptionActive: boolean) =>
  (delivery: PendingDelivery): PendingDeliveryResource => {
    const state = pendingStateOf(delivery, subscriptionActive);
    return {
      deliveryId: delivery.id,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      orderingKey: delivery.orderingKey,
      state,
      attemptsMade: delivery.attemptsMade,
      // A waiting delivery is attempted once the one it waits behind is settled, not at a time of its own.
      nextAttemptAt: delivery.waitingBehind !== null ? null : new Date(delivery.nextAttemptAt).toISOString(),
      acceptedAt: new Date(delivery.createdAt).toISOString(),
      waitingBehind: delivery.waitingBehind,
    };
  };
