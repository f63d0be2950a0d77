import { z } from 'zod';
import type { EventCatalog } from '../shared/event-versions.ts';

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
const paymentReceivedV1 = z.strictObject({
  orderId: z.string(),
  paymentId: z.string(),
  amount: money,
  reference: z.string(),
  receivedAt: timestamp,
});

export type OrderPlaced = { type: 'OrderPlaced'; data: z.infer<typeof orderPlacedV1> };
export type OrderConfirmed = { type: 'OrderConfirmed'; data: z.infer<typeof orderConfirmedV1> };
export type OrderShipped = { type: 'OrderShipped'; data: z.infer<typeof orderShippedV2> };
export type OrderDelivered = { type: 'OrderDelivered'; data: z.infer<typeof orderDeliveredV1> };
export type OrderCancelled = { type: 'OrderCancelled'; data: z.infer<typeof orderCancelledV1> };
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

/** Every order event, every version: what the event codec writes and reads them with. */
export const orderEvents: EventCatalog<OrderEvent> = {
  OrderPlaced: { schemas: [orderPlacedV1], upcast: [] },
  OrderConfirmed: { schemas: [orderConfirmedV1], upcast: [] },
  OrderShipped: { schemas: [orderShippedV1, orderShippedV2], upcast: [shippedWithoutDetails] },
  OrderDelivered: { schemas: [orderDeliveredV1], upcast: [] },
  OrderCancelled: { schemas: [orderCancelledV1], upcast: [] },
  PaymentReceived: { schemas: [paymentReceivedV1], upcast: [] },
};
