import type { Money } from '../shared/money.ts';
import type { PersonalText } from '../shared/personal-data.ts';
import type { OrderEvent } from './order-events.ts';
import type { Address, OrderLine, OrderStatus, ShipmentDetails } from './order.ts';

export type PaymentDetails = {
  paymentId: string;
  amount: Money;
  reference: string;
  receivedAt: string;
};

/**
 * An order as people read it: what was ordered, where it goes, what was paid, where it is. Its own fold of
 * the order's events, apart from what deciding needs (domain/orders/order-decider.ts): a field added here
 * changes no decision, and one added to the decision state changes no document.
 */
export type OrderDetails = {
  status: OrderStatus;
  id: string;
  customerId: string;
  items: OrderLine[];
  total: Money;
  shippingAddress: Address;
  /** Personal texts are sealed (objects) here, and opened where they leave the service. */
  note: PersonalText | null;
  payments: PaymentDetails[];
  cancellationReason: PersonalText | null;
  /** Once shipped: how the shipment can be followed, and when it left. Absent before. */
  shipment?: ShipmentDetails & { shippedAt: string };
  createdAt: string;
  updatedAt: string;
};

/** The details after one more event of the order's stream, in order; null before the first. */
export const evolveDetails = (details: OrderDetails | null, event: OrderEvent): OrderDetails => {
  if (event.type === 'OrderPlaced') {
    const { orderId, customerId, items, total, shippingAddress, note, placedAt } = event.data;
    return {
      status: 'pending',
      id: orderId,
      customerId,
      items,
      total,
      shippingAddress,
      note,
      payments: [],
      cancellationReason: null,
      createdAt: placedAt,
      updatedAt: placedAt,
    };
  }
  if (details === null) throw new Error(`${event.type} on an order that was never placed`);
  switch (event.type) {
    case 'OrderConfirmed':
      return { ...details, status: 'confirmed', updatedAt: event.data.confirmedAt };
    case 'OrderShipped': {
      const { shippedAt, carrier, trackingNumber, trackingUrl } = event.data;
      return {
        ...details,
        status: 'shipped',
        shipment: { carrier, trackingNumber, trackingUrl, shippedAt },
        updatedAt: shippedAt,
      };
    }
    case 'OrderDelivered':
      return { ...details, status: 'delivered', updatedAt: event.data.deliveredAt };
    case 'OrderCancelled':
      return {
        ...details,
        status: 'cancelled',
        cancellationReason: event.data.reason,
        updatedAt: event.data.cancelledAt,
      };
    case 'PaymentReceived': {
      const { paymentId, amount, reference, receivedAt } = event.data;
      return {
        ...details,
        payments: [...details.payments, { paymentId, amount, reference, receivedAt }],
        updatedAt: receivedAt,
      };
    }
    default: {
      const unknown: never = event;
      throw new Error(`unknown order event ${JSON.stringify(unknown)}`);
    }
  }
};

/** The details a history describes, or null for no order. */
export const detailsOf = (history: readonly OrderEvent[]): OrderDetails | null =>
  history.reduce<OrderDetails | null>(evolveDetails, null);
