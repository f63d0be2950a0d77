import { moneyToDecimal, type Money } from '../domain/money.ts';
import type { PlacedOrder } from '../domain/order/order.ts';
import { jsonRepresentation, type Representation } from '../infrastructure/http/representation.ts';

/** An order as the read model keeps it: the decider's state, plus where in its stream and the log it is. */
export type OrderView = PlacedOrder & {
  /** Stream revision of the last event applied: guards against applying an event twice or out of order. */
  revision: number;
  /** Global position of that event, as a decimal string (positions exceed 2^53). */
  position: string;
};

const money = (value: Money) => ({ amount: moneyToDecimal(value), currency: value.currency });

/**
 * The order resource of spec 2.1 as the API sends it, from the order's state alone: the command side
 * (state replayed from the stream) and the query side (the read model) produce the same bytes, and so the
 * same strong ETag, for the same revision.
 */
export const orderResource = (order: PlacedOrder) => ({
  id: order.id,
  status: order.status,
  customerId: order.customerId,
  items: order.items.map((line) => ({
    productId: line.productId,
    productName: line.productName,
    quantity: line.quantity,
    unitPrice: money(line.unitPrice),
  })),
  total: money(order.total),
  shippingAddress: order.shippingAddress,
  note: order.note,
  payments: order.payments.map((payment) => ({
    id: payment.paymentId,
    amount: money(payment.amount),
    reference: payment.reference,
    receivedAt: payment.receivedAt,
  })),
  cancellationReason: order.cancellationReason,
  createdAt: order.createdAt,
  updatedAt: order.updatedAt,
});

/** The order as sent, with its strong ETag: the same bytes, and so the same ETag, from either side. */
export const orderRepresentation = (order: PlacedOrder): Representation =>
  jsonRepresentation(orderResource(order), { lastModified: order.updatedAt });
