import type { Money } from '../shared/money.ts';
import type { PersonalText } from '../shared/personal-data.ts';

export const orderStatuses = ['pending', 'confirmed', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof orderStatuses)[number];

/** What a caller can ask of an existing order; carried by the 409 answer to a forbidden move. */
export type OrderAction = 'confirm' | 'ship' | 'deliver' | 'cancel' | 'record-payment';

/** Each part personal text: sealed (an object) once the command handler has sealed it, or copied sealed. */
export type Address = {
  street: PersonalText;
  city: PersonalText;
  postalCode: PersonalText;
  /** ISO 3166-1 alpha-2. */
  country: PersonalText;
};

/** An order line as priced from the catalogue at the moment of ordering. */
export type OrderLine = {
  productId: string;
  productName: string;
  quantity: number;
  unitPrice: Money;
};

/** How a shipment can be followed; each detail is optional. */
export type ShipmentDetails = {
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
};

// Commands: what a caller asks. Ids and timestamps (ISO 8601, UTC) are chosen by the caller, already
// validated as input (command-api/orders): the domain reads no clock and checks only what depends on state.

export type PlaceOrder = {
  type: 'PlaceOrder';
  data: {
    orderId: string;
    customerId: string;
    items: readonly [OrderLine, ...OrderLine[]];
    shippingAddress: Address;
    note: string | null;
    placedAt: string;
  };
};
export type ConfirmOrder = { type: 'ConfirmOrder'; data: { orderId: string; confirmedAt: string } };
export type ShipOrder = {
  type: 'ShipOrder';
  data: { orderId: string; shippedAt: string; shipment: ShipmentDetails };
};
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

export const orderStreamPrefix = 'order-';
export const orderStreamName = (orderId: string): string => `${orderStreamPrefix}${orderId}`;
export const isOrderStream = (streamId: string): boolean => streamId.startsWith(orderStreamPrefix);
export const orderIdOf = (streamId: string): string => streamId.slice(orderStreamPrefix.length);
