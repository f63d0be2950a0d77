import { randomUUID } from 'node:crypto';
import type { Product } from '../../catalog/catalog.ts';
import { orderCodec } from '../../domain/orders/order-codec.ts';
import { orderDecider } from '../../domain/orders/order-decider.ts';
import type { OrderEvent } from '../../domain/orders/order-events.ts';
import {
  orderStreamName,
  type OrderCommand,
  type OrderLine,
  type ShipmentDetails,
} from '../../domain/orders/order.ts';
import type { Actor, EventToAppend } from '../../infrastructure/event-store/event-store.ts';
import type { GivenStream } from './api-specification.ts';
import { anAddress } from './orders.ts';
import { testClockStart } from './test-clocks.ts';

/** Who acts on a given order: a signed-in user of the service. */
type Party = { id: string; roles: readonly string[] };

/** What happened to a given order after it was placed, in order; a payment's amount in minor units. */
export type OrderStep =
  | 'confirm'
  | 'ship'
  | 'deliver'
  | 'cancel'
  | { ship: ShipmentDetails }
  | { cancel: { reason: string } }
  | { pay: { amountMinor: number; reference: string } };

export type GivenOrder = GivenStream & { id: string; placedAt: string };

/** A line of `product` as the command side prices it from the catalogue. */
export const lineOf = (product: Product, quantity = 1, currency = 'EUR'): OrderLine => ({
  productId: String(product.id),
  productName: product.name,
  quantity,
  unitPrice: { amountMinor: product.priceMinor, currency },
});

/** Two espresso cups of the demo catalogue (39.98 EUR): what an order is unless told otherwise. */
export const twoEspressoCups: OrderLine = {
  productId: '1001',
  productName: 'Espresso cup',
  quantity: 2,
  unitPrice: { amountMinor: 1999, currency: 'EUR' },
};

/**
 * An order `customer` placed at `at` (every step happens then too), moved through `steps` by `by`: its stream
 * as the command side would have appended it, the events decided by the real decider from the commands,
 * each recording who acted. The address and the note are left unsealed, as the log may hold them.
 */
export const givenOrder = (
  {
    customer,
    by = customer,
    at = testClockStart.toISOString(),
    items = [twoEspressoCups],
    note = null,
  }: {
    customer: Party;
    by?: Party;
    at?: string;
    items?: [OrderLine, ...OrderLine[]];
    note?: string | null;
  },
  ...steps: OrderStep[]
): GivenOrder => {
  const orderId = randomUUID();
  const place: OrderCommand = {
    type: 'PlaceOrder',
    data: { orderId, customerId: customer.id, items, shippingAddress: anAddress, note, placedAt: at },
  };
  const decided = decideAll([place, ...steps.map((step) => commandOf(step, orderId, at))]);
  const events = decided.map((event, index) => recorded(event, index === 0 ? customer : by, at));
  return { id: orderId, streamId: orderStreamName(orderId), events, placedAt: at };
};

const decideAll = (commands: OrderCommand[]): OrderEvent[] => {
  let state = orderDecider.initialState();
  const events: OrderEvent[] = [];
  for (const command of commands) {
    for (const event of orderDecider.decide(command, state)) {
      state = orderDecider.evolve(state, event);
      events.push(event);
    }
  }
  return events;
};

const commandOf = (step: OrderStep, orderId: string, at: string): OrderCommand => {
  const noDetails = { carrier: null, trackingNumber: null, trackingUrl: null };
  if (step === 'confirm') return { type: 'ConfirmOrder', data: { orderId, confirmedAt: at } };
  if (step === 'ship') return { type: 'ShipOrder', data: { orderId, shippedAt: at, shipment: noDetails } };
  if (step === 'deliver') return { type: 'DeliverOrder', data: { orderId, deliveredAt: at } };
  if (step === 'cancel') return { type: 'CancelOrder', data: { orderId, reason: null, cancelledAt: at } };
  if ('ship' in step) return { type: 'ShipOrder', data: { orderId, shippedAt: at, shipment: step.ship } };
  if ('cancel' in step)
    return { type: 'CancelOrder', data: { orderId, reason: step.cancel.reason, cancelledAt: at } };
  const { amountMinor, reference } = step.pay;
  const amount = { amountMinor, currency: 'EUR' };
  return {
    type: 'RecordPayment',
    data: { orderId, paymentId: randomUUID(), amount, reference, receivedAt: at },
  };
};

const recorded = (event: OrderEvent, actor: Party, at: string): EventToAppend => {
  const { type, data, schemaVersion } = orderCodec.encode(event);
  const requestId = randomUUID();
  const who: Actor = { userId: actor.id, roles: actor.roles };
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { actor: who, correlationId: requestId, causationId: requestId, occurredAt: at, schemaVersion },
  };
};
