import { personalPathsIn, type PersonalDataClassification } from '../shared/personal-data.ts';
import { orderEvents, type OrderEvent } from './order-events.ts';

// Which data names a person: the event schemas say it (order-events.ts: a field of type `personalText` is
// personal), and this says whose it is. Every such field is sealed (encrypted under its owner's data key) before the event reaches any store or topic, and
// every view that copies it (read models, the order resource, webhooks, stored idempotent answers, the
// webhook retry state) carries the sealed form; the surfaces open it on the way out, and show `[erased]`
// once the owner's key is gone. Erasure (crypto-shredding) is deleting that key.

/** The personal fields of an event type's current version, as its schema marks them. */
const personalFieldsOf = (type: 'OrderPlaced' | 'OrderCancelled') =>
  personalPathsIn(orderEvents[type].schemas.at(-1)!);

/** The customer of the order whose stream `before` is: the owner of what is written about the order. */
const customerOf = (before: readonly { type: string; data: unknown }[]): string => {
  const placed = before.find((event) => event.type === 'OrderPlaced');
  if (!placed) throw new Error('an order event before the order was placed');
  return (placed.data as { customerId: string }).customerId;
};

/**
 * Order events. The shipping address (all of it: a postcode and a city narrow a person down), the
 * customer's free-text note and the cancellation reason (free text a person writes about the order, the
 * customer or staff: it is the customer's, sealed under their key whoever wrote it) are the customer's;
 * ids, amounts, products, statuses, timestamps, payment references, carriers and tracking numbers
 * (operational identifiers) are not.
 */
export const orderPersonalData: PersonalDataClassification<OrderEvent> = {
  OrderPlaced: {
    owner: (data) => data.customerId,
    fields: personalFieldsOf('OrderPlaced'),
    taggedSince: 2,
  },
  OrderCancelled: {
    owner: (_data, before) => customerOf(before),
    fields: personalFieldsOf('OrderCancelled'),
    taggedSince: 2,
  },
};

/*
 * The views that copy personal fields, and where (documentation and tests hold to this list; each copies
 * the sealed form from the events above, and is opened only where it leaves the service):
 * - the order resource (GET /orders/{id}, lists, ?revision=N, command answers, stored idempotent answers):
 *   `shippingAddress.*`, `note`, `cancellationReason`;
 * - webhook bodies (order.created: `data.shippingAddress.*`, `data.note`; order.status_changed:
 *   `data.order.shippingAddress.*`, `data.order.note`, `data.order.cancellationReason`), in Kafka messages
 *   and the webhook retry state;
 * - event resources (`/orders/{id}/events`, `/audit/events`) and exports: the event data above.
 * The user record (identity/): `email`, `name` and the stored addresses are personal. Stored
 * addresses are sealed like the events' (an order copies the sealed form); the e-mail and name stay in the
 * clear (sign-in needs the e-mail), and erasure anonymises them.
 */
