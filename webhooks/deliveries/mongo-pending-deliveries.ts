import type { Collection } from 'mongodb';
import { asPendingDelivery, type PendingDelivery } from './delivery-queue.ts';
import type { DeliveryDocument } from './mongo-delivery-queue.ts';

/**
 * DeliveryQueue.pendingOf over the main collection, where every pending delivery is: a page of the
 * subscription's pending ones (served by the `pending-of` index), then the heads of their lines in one more
 * read of the pending deliveries of those lines (the `line` index).
 */
export const pendingOfIn =
  (deliveries: Collection<DeliveryDocument>) =>
  async (
    subscriptionId: string,
    limit: number,
  ): Promise<{ deliveries: PendingDelivery[]; more: boolean }> => {
    const page = await deliveries
      .find({ subscriptionId, status: 'pending' })
      .sort({ createdAt: 1, sequence: 1, _id: 1 })
      .limit(limit + 1)
      .toArray();
    const shown = page.slice(0, limit);
    const keys = [...new Set(shown.map((delivery) => delivery.orderingKey))];
    const lines = await deliveries
      .find(
        { subscriptionId, orderingKey: { $in: keys }, status: 'pending' },
        { projection: { _id: 1, orderingKey: 1, sequence: 1 } },
      )
      .toArray();
    const heads = new Map<string, { id: string; sequence: number }>();
    for (const { _id, orderingKey, sequence } of lines) {
      const head = heads.get(orderingKey);
      if (!head || sequence < head.sequence || (sequence === head.sequence && _id < head.id)) {
        heads.set(orderingKey, { id: _id, sequence });
      }
    }
    return {
      deliveries: shown.map(({ _id, claims: _claims, ...delivery }) =>
        asPendingDelivery({ id: _id, ...delivery }, heads.get(delivery.orderingKey)?.id ?? _id),
      ),
      more: page.length > limit,
    };
  };
