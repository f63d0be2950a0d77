import type { OrderEvent, OrderPlaced } from '../../domain/orders/order-events.ts';
import type { OrderCommand, OrderLine, OrderStatus, ShipmentDetails } from '../../domain/orders/order.ts';

/** A shipment of which nothing is known: no carrier, no tracking number, no tracking URL. */
export const noShipmentDetails: ShipmentDetails = { carrier: null, trackingNumber: null, trackingUrl: null };

export const orderId = '6f1c1c4e-8a0f-4d55-9b6a-0c9b8f1e2d3a';
export const customerId = 'customer-1';
export const at = (minute: number): string => new Date(Date.UTC(2026, 10, 21, 10, minute)).toISOString();

export const line = (
  productId: string,
  quantity: number,
  amountMinor: number,
  currency = 'EUR',
): OrderLine => ({
  productId,
  productName: `Product ${productId}`,
  quantity,
  unitPrice: { amountMinor, currency },
});

export const address = { street: '1 Main Street', city: 'Lyon', postalCode: '69001', country: 'FR' };

export const placeOrder = (
  items: readonly [OrderLine, ...OrderLine[]] = [line('p-1', 2, 1999), line('p-2', 1, 500)],
): OrderCommand => ({
  type: 'PlaceOrder',
  data: { orderId, customerId, items, shippingAddress: address, note: null, placedAt: at(0) },
});

export const orderPlaced = (): OrderPlaced => ({
  type: 'OrderPlaced',
  data: {
    orderId,
    customerId,
    items: [line('p-1', 2, 1999), line('p-2', 1, 500)],
    total: { amountMinor: 4498, currency: 'EUR' },
    shippingAddress: address,
    note: null,
    placedAt: at(0),
  },
});

export const orderConfirmed = (): OrderEvent => ({
  type: 'OrderConfirmed',
  data: { orderId, confirmedAt: at(1) },
});
export const orderShipped = (): OrderEvent => ({
  type: 'OrderShipped',
  data: { orderId, shippedAt: at(2), ...noShipmentDetails },
});
export const orderDelivered = (): OrderEvent => ({
  type: 'OrderDelivered',
  data: { orderId, deliveredAt: at(3) },
});
export const orderCancelled = (): OrderEvent => ({
  type: 'OrderCancelled',
  data: { orderId, reason: null, cancelledAt: at(4) },
});

/** A history that leaves the order in the given status. */
export const historyIn = (status: OrderStatus): OrderEvent[] => {
  switch (status) {
    case 'pending':
      return [orderPlaced()];
    case 'confirmed':
      return [orderPlaced(), orderConfirmed()];
    case 'shipped':
      return [orderPlaced(), orderConfirmed(), orderShipped()];
    case 'delivered':
      return [orderPlaced(), orderConfirmed(), orderShipped(), orderDelivered()];
    case 'cancelled':
      return [orderPlaced(), orderCancelled()];
  }
};
