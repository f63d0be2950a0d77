import { z } from 'zod';
import { timestamp } from '../../domain/shared/resource-shapes.ts';

/**
 * A pending delivery as GET /webhooks/{id}/deliveries/pending answers it, stated once: its type, the API
 * document's `PendingDelivery` and the console's type come from here.
 */
export const pendingDeliveryResourceSchema = z
  .strictObject({
    deliveryId: z.uuid().meta({ description: 'The delivery, for POST …/deliveries/{deliveryId}/retry.' }),
    eventId: z.string().meta({ description: 'The event’s id: the webhook-id header.' }),
    eventType: z.string(),
    orderingKey: z.string().meta({
      description:
        'Deliveries of one key (an order’s id, for an order’s events) go to the subscription one at a time, in the order’s event order.',
    }),
    state: z.enum(['scheduled', 'retrying', 'waiting', 'held']).meta({
      description:
        '`held`: the subscription is disabled (by an admin, or by a receiver’s 410), so nothing is sent: the delivery is cancelled when its turn comes (at `nextAttemptAt`, or once the one it waits behind is settled), unless the subscription is enabled again first; `waiting`: behind an earlier delivery of its key that is not settled yet (`waitingBehind`), sent once that one is delivered or dead-lettered; `retrying`: an attempt failed and the next is at `nextAttemptAt`; `scheduled`: no attempt has ended yet (one may be under way), due at `nextAttemptAt`.',
    }),
    attemptsMade: z.int().min(0).meta({ description: 'Attempts so far, an admin’s retries included.' }),
    nextAttemptAt: timestamp
      .nullable()
      .meta({ description: 'When it is attempted next; null while waiting.' }),
    acceptedAt: timestamp.meta({
      description: 'When the dispatcher accepted the event for this subscription.',
    }),
    waitingBehind: z
      .uuid()
      .nullable()
      .meta({ description: 'The delivery it waits behind (the head of its key); null when it is the head.' }),
  })
  .meta({ id: 'PendingDelivery' });

export type PendingDeliveryResource = z.infer<typeof pendingDeliveryResourceSchema>;
