import { z } from 'zod';
import type { EventCatalog } from '../shared/event-versions.ts';
import { legacySealedFields, personalText } from '../shared/personal-data.ts';

// The facts in an order's stream, in the past tense, with the schema of every version each has had. An
// auditor replays these for years: a change to a command never changes them; a change to an event is a
// new version with an upcaster from the one before.

const timestamp = z.iso.datetime();
const money = z.strictObject({ amountMinor: z.int(), currency: z.string().regex(/^[A-Z]{3}$/) });
const address = z.strictObject({
  street: z.string(),
  city: z.string(),
  postalCode: z.string(),
  country: z.string(),
});
/** Version 2 of OrderPlaced: each part a personal text (sealed in the log, see personal-data.ts). */
const personalAddress = z.strictObject({
  street: personalText,
  city: personalText,
  postalCode: personalText,
  country: personalText,
});
const line = z.strictObject({
  productId: z.string(),
  productName: z.string(),
  quantity: z.int().positive(),
  unitPrice: money,
});

const orderPlacedV1 = z.strictObject({
  orderId: z.string(),
  customerId: z.string(),
  items: z.array(line).min(1),
  total: money,
  shippingAddress: address,
  note: z.string().nullable(),
  placedAt: timestamp,
});
/**
 * Version 2: the address and the note are personal texts, a sealed one an object (`{sealed}`), so that a
 * client's text, always a string, is never taken for one.
 */
const orderPlacedV2 = orderPlacedV1.extend({
  shippingAddress: personalAddress,
  note: personalText.nullable(),
});
const orderConfirmedV1 = z.strictObject({ orderId: z.string(), confirmedAt: timestamp });
const orderShippedV1 = z.strictObject({ orderId: z.string(), shippedAt: timestamp });
/** Version 2: how the shipment can be followed (each detail may be unknown). */
const orderShippedV2 = z.strictObject({
  orderId: z.string(),
  shippedAt: timestamp,
  carrier: z.string().nullable(),
  trackingNumber: z.string().nullable(),
  trackingUrl: z.string().nullable(),
});
const orderDeliveredV1 = z.strictObject({ orderId: z.string(), deliveredAt: timestamp });
const orderCancelledV1 = z.strictObject({
  orderId: z.string(),
  reason: z.string().nullable(),
  cancelledAt: timestamp,
});
/** Version 2: the reason is the customer's personal text, sealed under their key whoever cancels. */
const orderCancelledV2 = orderCancelledV1.extend({ reason: personalText.nullable() });
const paymentReceivedV1 = z.strictObject({
  orderId: z.string(),
  paymentId: z.string(),
  amount: money,
  reference: z.string(),
  receivedAt: timestamp,
});

export type OrderPlaced = { type: 'OrderPlaced'; data: z.infer<typeof orderPlacedV2> };
export type OrderConfirmed = { type: 'OrderConfirmed'; data: z.infer<typeof orderConfirmedV1> };
export type OrderShipped = { type: 'OrderShipped'; data: z.infer<typeof orderShippedV2> };
export type OrderDelivered = { type: 'OrderDelivered'; data: z.infer<typeof orderDeliveredV1> };
export type OrderCancelled = { type: 'OrderCancelled'; data: z.infer<typeof orderCancelledV2> };
export type PaymentReceived = { type: 'PaymentReceived'; data: z.infer<typeof paymentReceivedV1> };

export type OrderEvent =
  OrderPlaced | OrderConfirmed | OrderShipped | OrderDelivered | OrderCancelled | PaymentReceived;

/** OrderShipped v1 -> v2: orders shipped before shipment details existed have none. */
export const shippedWithoutDetails = (
  v1: z.infer<typeof orderShippedV1>,
): z.infer<typeof orderShippedV2> => ({
  ...v1,
  carrier: null,
  trackingNumber: null,
  trackingUrl: null,
});

const placedFields = [
  ['shippingAddress', 'street'],
  ['shippingAddress', 'city'],
  ['shippingAddress', 'postalCode'],
  ['shippingAddress', 'country'],
  ['note'],
] as const;

/**
 * OrderPlaced v1 -> v2: the first personal-data release stored a sealed field as its bare token; a token
 * naming the order's customer becomes a sealed field, anything else (a plain address, a client's text of
 * that shape naming another owner) stays the text it is.
 */
export const placedWithSealedFields = (v1: z.infer<typeof orderPlacedV1>): z.infer<typeof orderPlacedV2> =>
  legacySealedFields(v1, v1.customerId, placedFields);

/** OrderCancelled v1 -> v2: a reason written before reasons were sealed stays the text it was. */
export const cancelledWithPlainReason = (
  v1: z.infer<typeof orderCancelledV1>,
): z.infer<typeof orderCancelledV2> => v1;

/** Every order event, every version: what the event codec writes and reads them with. */
export const orderEvents: EventCatalog<OrderEvent> = {
  OrderPlaced: { schemas: [orderPlacedV1, orderPlacedV2], upcast: [placedWithSealedFields] },
  OrderConfirmed: { schemas: [orderConfirmedV1], upcast: [] },
  OrderShipped: { schemas: [orderShippedV1, orderShippedV2], upcast: [shippedWithoutDetails] },
  OrderDelivered: { schemas: [orderDeliveredV1], upcast: [] },
  OrderCancelled: {
    schemas: [orderCancelledV1, orderCancelledV2],
    upcast: [cancelledWithPlainReason],
  },
  PaymentReceived: { schemas: [paymentReceivedV1], upcast: [] },
};
