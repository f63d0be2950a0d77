import type { Money } from '../money.ts';

export const orderStatuses = ['pending', 'confirmed', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof orderStatuses)[number];

/** What a caller can ask of an existing order; carried by the 409 answer to a forbidden move. */
export type OrderAction = 'confirm' | 'ship' | 'deliver' | 'cancel' | 'record-payment';

export type Address = {
  street: string;
  city: string;
  postalCode: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
};

/** An order line as priced from the catalogue at the moment of ordering. */
export type OrderLine = {
  productId: string;
  productName: string;
  quantity: number;
  unitPrice: Money;
};

export type Payment = {
  paymentId: string;
  amount: Money;
  reference: string;
  receivedAt: string;
};

// Commands. Ids and timestamps (ISO 8601, UTC) are chosen by the caller: the domain reads no clock.

export type PlaceOrder = {
  type: 'PlaceOrder';
  data: {
    orderId: string;
    customerId: string;
    items: OrderLine[];
    shippingAddress: Address;
    note: string | null;
    placedAt: string;
  };
};
export type ConfirmOrder = { type: 'ConfirmOrder'; data: { orderId: string; confirmedAt: string } };
export type ShipOrder = { type: 'ShipOrder'; data: { orderId: string; shippedAt: string } };
export type DeliverOrder = { type: 'DeliverOrder'; data: { orderId: string; deliveredAt: string } };
export type CancelOrder = {
  type: 'CancelOrder';
  data: { orderId: string; reason: string | null; cancelledAt: string };
};
export type RecordPayment = {
  type: 'RecordPayment';
  data: { orderId: string; paymentId: string; amount: Money; reference: string; receivedAt: string };
};

export type OrderCommand = PlaceOrder | ConfirmOrder | ShipOrder | DeliverOrder | CancelOrder | RecordPayment;

// Events: the facts in an order's stream, in the past tense.

export type OrderPlaced = {
  type: 'OrderPlaced';
  data: {
    orderId: string;
    customerId: string;
    items: OrderLine[];
    total: Money;
    shippingAddress: Address;
    note: string | null;
    placedAt: string;
  };
};
export type OrderConfirmed = { type: 'OrderConfirmed'; data: { orderId: string; confirmedAt: string } };
export type OrderShipped = { type: 'OrderShipped'; data: { orderId: string; shippedAt: string } };
export type OrderDelivered = { type: 'OrderDelivered'; data: { orderId: string; deliveredAt: string } };
export type OrderCancelled = {
  type: 'OrderCancelled';
  data: { orderId: string; reason: string | null; cancelledAt: string };
};
export type PaymentReceived = {
  type: 'PaymentReceived';
  data: { orderId: string; paymentId: string; amount: Money; reference: string; receivedAt: string };
};

export type OrderEvent =
  OrderPlaced | OrderConfirmed | OrderShipped | OrderDelivered | OrderCancelled | PaymentReceived;

export const orderEventTypes: readonly OrderEvent['type'][] = [
  'OrderPlaced',
  'OrderConfirmed',
  'OrderShipped',
  'OrderDelivered',
  'OrderCancelled',
  'PaymentReceived',
];

// State: nothing yet, or a placed order in one of the statuses of the lifecycle.

export type NoOrder = { status: 'none' };

export type PlacedOrder = {
  status: OrderStatus;
  id: string;
  customerId: string;
  items: OrderLine[];
  total: Money;
  shippingAddress: Address;
  note: string | null;
  payments: Payment[];
  cancellationReason: string | null;
  createdAt: string;
  updatedAt: string;
};

export type Order = NoOrder | PlacedOrder;

export const orderStreamName = (orderId: string): string => `order-${orderId}`;
