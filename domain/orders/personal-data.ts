import type { PersonalDataClassification } from '../shared/personal-data.ts';
import type { OrderEvent } from './order-events.ts';

// Which data names a person, in one place beside the event schemas (order-events.ts). Every field listed
// here is sealed (encrypted under its owner's data key) before the event reaches any store or topic, and
// every view that copies it (read models, the order resource, webhooks, stored idempotent answers, the
// webhook retry state) carries the sealed form; the surfaces open it on the way out, and show `[erased]`
// once the owner's key is gone. Erasure (crypto-shredding) is deleting that key.

const addressFields = ['street', 'city', 'postalCode', 'country'] as const;

/**
 * Order events. The shipping address (all of it: a postcode and a city narrow a person down) and the
 * customer's free-text note are the customer's; ids, amounts, products, statuses, timestamps, payment
 * references, shipment tracking and cancellation reasons (chosen by staff from the order's facts) are not.
 */
export const orderPersonalData: PersonalDataClassification<OrderEvent> = {
  OrderPlaced: {
    owner: (data) => data.customerId,
    fields: [...addressFields.map((field) => ['shippingAddress', field]), ['note']],
  },
};

/**
 * The views that copy personal fields, and where (documentation and tests hold to this list; each copies
 * the sealed form from the events above, and is opened only where it leaves the service):
 * - the order resource (GET /orders/{id}, lists, ?revision=N, command answers, stored idempotent answers):
 *   `shippingAddress.*`, `note`;
 * - webhook bodies (order.created: `data.shippingAddress.*`, `data.note`; order.status_changed:
 *   `data.order.shippingAddress.*`, `data.order.note`), in Kafka messages and the webhook retry state;
 * - event resources (`/orders/{id}/events`, `/audit/events`) and exports: the event data above.
 * The user record (projections/identity/): `email`, `name` and the stored addresses are personal. Stored
 * addresses are sealed like the events' (an order copies the sealed form); the e-mail and name stay in the
 * clear (sign-in needs the e-mail), and erasure anonymises them.
 */
export const personalViewFields = {
  orderResource: [...addressFields.map((field) => ['shippingAddress', field]), ['note']],
  user: [['email'], ['name'], ['addresses']],
} as const;
