import { addMoney, moneyToDecimal, zeroMoney, type Money } from '../shared/money.ts';
import { availableActions, type Caller } from './order-actions.ts';
import type { OrderDetails } from './order-details.ts';

const money = (value: Money) => ({ amount: moneyToDecimal(value), currency: value.currency });

/**
 * What a cancelled order owes back: every payment it received, in the order's currency (payments are in
 * it, the decider sees to that). Undefined for an order that is not cancelled, or received nothing.
 */
export const refundDueOf = (order: Pick<OrderDetails, 'status' | 'total' | 'payments'>): Money | undefined =>
  order.status === 'cancelled' && order.payments.length > 0
    ? order.payments.reduce((sum, payment) => addMoney(sum, payment.amount), zeroMoney(order.total.currency))
    : undefined;

/**
 * The order resource as the API sends it, from the order's details alone: the command side (details folded
 * from the stream) and the query side (the read model) produce the same bytes, and so the same strong
 * ETag, for the same revision. `shipment` appears once the order is shipped; `refundDue` once an order that
 * received payments is cancelled (derived here from its status and payments, so that a read model built
 * before it existed answers with it too, with nothing to rebuild).
 */
export const orderResource = (order: OrderDetails) => {
  const refundDue = refundDueOf(order);
  return {
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
    ...(refundDue === undefined ? {} : { refundDue: money(refundDue) }),
    ...(order.shipment === undefined ? {} : { shipment: order.shipment }),
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
};

/** What is still owed on the order, in minor units (below zero never: payments cannot exceed the total). */
const outstandingMinorOf = (order: Pick<OrderDetails, 'total' | 'payments'>): number =>
  order.payments.reduce((rest, payment) => rest - payment.amount.amountMinor, order.total.amountMinor);

/**
 * The order as it is now, as one caller reads it: the resource, and `actions`, what that caller may do to it
 * now (domain/orders/order-actions.ts). The representation is then the caller's: its bytes, and so its ETag,
 * differ between a customer and staff, and both sides of the API make the same ones for the same caller.
 * Past revisions and webhook payloads use `orderResource`, without them.
 */
export const currentOrderResource = (order: OrderDetails, caller: Caller) => ({
  ...orderResource(order),
  actions: actionsFor(order, caller),
});

/** What `caller` may do to the order now (domain/orders/order-actions.ts). */
export const actionsFor = (order: OrderDetails, caller: Caller) =>
  availableActions(
    { customerId: order.customerId, status: order.status, outstandingMinor: outstandingMinorOf(order) },
    caller,
  );
