import { randomUUID } from 'node:crypto';
import { orderDecider } from '../../domain/orders/order-decider.ts';
import type { OrderEvent } from '../../domain/orders/order-events.ts';
import { orderStreamName, type OrderCommand } from '../../domain/orders/order.ts';
import { orderCodec } from '../../domain/orders/order-codec.ts';
import type { RecordedEvent } from '../../infrastructure/event-store/event-store.ts';

let nextPosition = 1n;

/**
 * Log events of one order, produced by the real decider from commands, with stream revisions and
 * increasing global positions, as an event store would record them.
 */
export const recordedHistory = (
  commands: (orderId: string) => OrderCommand[],
  { orderId = randomUUID() }: { orderId?: string } = {},
): { orderId: string; events: RecordedEvent[] } => {
  let state = orderDecider.initialState();
  const events: RecordedEvent[] = [];
  for (const command of commands(orderId)) {
    for (const event of orderDecider.decide(command, state)) {
      state = orderDecider.evolve(state, event);
      events.push(record(orderId, event, events.length));
    }
  }
  return { orderId, events };
};

/** An event as the event store records it: encoded by the codec (the current version of its type). */
const record = (orderId: string, event: OrderEvent, revision: number): RecordedEvent => {
  const { type, data, schemaVersion } = orderCodec.encode(event);
  return {
    id: randomUUID(),
    type,
    data,
    metadata: {
      actor: null,
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: '2026-11-21T10:00:00.000Z',
      schemaVersion,
    },
    streamId: orderStreamName(orderId),
    revision,
    position: nextPosition++,
  };
};

export const placeCommand = (
  orderId: string,
  {
    customerId = 'customer-1',
    placedAt = '2026-11-21T10:00:00.000Z',
    quantity = 2,
    currency = 'EUR',
  }: { customerId?: string; placedAt?: string; quantity?: number; currency?: string } = {},
): OrderCommand => ({
  type: 'PlaceOrder',
  data: {
    orderId,
    customerId,
    items: [
      {
        productId: '1001',
        productName: 'Espresso cup',
        quantity,
        unitPrice: { amountMinor: 999, currency },
      },
    ],
    shippingAddress: { street: '1 Main St', city: 'Lyon', postalCode: '69001', country: 'FR' },
    note: null,
    placedAt,
  },
});
