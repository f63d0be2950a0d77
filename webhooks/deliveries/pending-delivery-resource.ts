import type { PendingDelivery } from './delivery-queue.ts';
import type { PendingDeliveryResource } from './pending-delivery-schema.ts';

/**
 * Where a pending delivery stands: `waiting` behind an earlier delivery of its line (the same order to the
 * same subscription) that is not settled yet; else `retrying` once an attempt failed, `scheduled` before
 * its first.
 */
export type PendingState = PendingDeliveryResource['state'];

export const pendingStateOf = ({ waitingBehind, attemptsMade }: PendingDelivery): PendingState =>
  waitingBehind !== null ? 'waiting' : attemptsMade > 0 ? 'retrying' : 'scheduled';

/** A pending delivery as GET /webhooks/{id}/deliveries/pending answers it. */
export const pendingDeliveryResource = (delivery: PendingDelivery): PendingDeliveryResource => {
  const state = pendingStateOf(delivery);
  return {
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    orderingKey: delivery.orderingKey,
    state,
    attemptsMade: delivery.attemptsMade,
    // A waiting delivery is attempted once the one it waits behind is settled, not at a time of its own.
    nextAttemptAt: state === 'waiting' ? null : new Date(delivery.nextAttemptAt).toISOString(),
    acceptedAt: new Date(delivery.createdAt).toISOString(),
    waitingBehind: delivery.waitingBehind,
  };
};
