import { moneyToDecimal, type Money } from '../../domain/shared/money.ts';
import type { OrderDetails } from './order-details.ts';

const money = (value: Money) => ({ amount: moneyToDecimal(value), currency: value.currency });

/**
 * The order resource as the API sends it, from the order's details alone: the command side (details folded
 * from the stream) and the query side (the read model) produce the same bytes, and so the same strong
 * ETag, for the same revision. `shipment` appears once the order is shipped.
 */
export const orderResource = (order: OrderDetails) => ({
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
  ...(order.shipment === undefined ? {} : { shipment: order.shipment }),
  createdAt: order.createdAt,
  updatedAt: order.updatedAt,
});

export type OrderResource = ReturnType<typeof orderResource>;
