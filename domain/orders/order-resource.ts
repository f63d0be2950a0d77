import { z } from 'zod';
import { addMoney, moneyToDecimal, zeroMoney, type Money } from '../shared/money.ts';
import type { PersonalText } from '../shared/personal-data.ts';
import { moneySchema, personal, shippingAddressSchema, timestamp } from '../shared/resource-shapes.ts';
import { availableActions, orderActions, type Caller } from './order-actions.ts';
import type { OrderDetails } from './order-details.ts';
import { orderStatuses, type Address } from './order.ts';

/**
 * The order resource, stated once: its type (`OrderResource`), its place in the API document (`Order`,
 * `CurrentOrder`), the console's types and which of its fields are personal (`personal(...)`) all come
 * from here. `orderResource` below builds it from an order's details.
 */
export const orderResourceSchema = z
  .strictObject({
    id: z.uuid(),
    status: z.enum(orderStatuses),
    customerId: z.string().meta({ description: 'The user who placed the order.' }),
    items: z
      .array(
        z.strictObject({
          productId: z.string(),
          productName: z
            .string()
            .meta({ description: 'Copied from the catalogue when the order was placed.' }),
          quantity: z.int().min(1),
          unitPrice: moneySchema,
        }),
      )
      .min(1),
    total: moneySchema,
    shippingAddress: shippingAddressSchema,
    note: personal(z.string().nullable(), 'The customer’s note.'),
    payments: z.array(
      z.strictObject({ id: z.uuid(), amount: moneySchema, reference: z.string(), receivedAt: timestamp }),
    ),
    cancellationReason: personal(
      z.string().nullable(),
      'Why the order was cancelled, as the customer or staff wrote it; the order’s customer’s whoever wrote it.',
    ),
    refundDue: moneySchema.optional().meta({
      description:
        'Once an order that received payments is cancelled: what is owed back to the customer, the sum of its payments, in the order’s currency. Absent otherwise. The service records no refund: settling it is the shop’s, with its payment provider.',
    }),
    shipment: z
      .strictObject({
        carrier: z.string().nullable(),
        trackingNumber: z.string().nullable(),
        trackingUrl: z.string().nullable(),
        shippedAt: timestamp,
      })
      .optional()
      .meta({
        description:
          'Once the order is shipped: how the shipment can be followed (each detail null when not given; null for orders shipped before shipment details existed) and when it left.',
      }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Order', description: 'An order: prices, names and address as they were at ordering.' });

const orderActionsSchema = z.array(z.enum(orderActions)).meta({
  id: 'OrderActions',
  description:
    'What the caller may do to the order now, each the last segment of its command’s path (`record-payment` is POST /orders/{orderId}/payments): allowed from its status by the lifecycle (a payment only while something is outstanding, so none once cancelled) and granted to one of the caller’s roles for this order (a customer’s own only). Offer these and no other; a command can still be refused (409, 412) when the order changed meanwhile. Being the caller’s, the order’s representation and its ETag differ between callers.',
});

/** The order as it is now, as the caller reads it: with `actions`. */
export const currentOrderResourceSchema = orderResourceSchema.extend({ actions: orderActionsSchema }).meta({
  id: 'CurrentOrder',
  description:
    'An order as it is now, with what the caller may do to it (`actions`): prices, names and address as they were at ordering.',
});

/** The order resource as a client reads it (personal fields opened). */
export type OrderResource = z.infer<typeof orderResourceSchema>;
export type CurrentOrderResource = z.infer<typeof currentOrderResourceSchema>;

/**
 * The resource as built, before it leaves the service: every member as the schema says, but the personal
 * ones still sealed (opened, or "[erased]", by the keyring on the way out).
 */
type SealedOrderResource = Omit<OrderResource, 'shippingAddress' | 'note' | 'cancellationReason'> & {
  shippingAddress: Address;
  note: PersonalText | null;
  cancellationReason: PersonalText | null;
};

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
export const orderResource = (order: OrderDetails): SealedOrderResource => {
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
