// The events an order's stream really holds, in lifecycle order: the rows every event-log benchmark appends.
import { randomUUID } from 'node:crypto';
import type { EventToAppend } from '../../infrastructure/event-store/event-store.ts';

const metadata = {
  actor: { userId: 'user-1', roles: ['customer'] },
  correlationId: randomUUID(),
  causationId: null,
  occurredAt: '2026-11-21T10:00:00.000Z',
};
const orderId = randomUUID();
// 5 per stream, about 330 bytes each on average.
const lifecycle: Pick<EventToAppend, 'type' | 'data'>[] = [
  {
    type: 'OrderPlaced',
    data: {
      orderId,
      customerId: 'user-1',
      items: [
        {
          productId: '12',
          productName: 'Espresso cup',
          quantity: 2,
          unitPrice: { amountMinor: 1999, currency: 'EUR' },
        },
        {
          productId: '31',
          productName: 'Milk jug',
          quantity: 1,
          unitPrice: { amountMinor: 500, currency: 'EUR' },
        },
      ],
      total: { amountMinor: 4498, currency: 'EUR' },
      shippingAddress: { street: '1 Main Street', city: 'Lyon', postalCode: '69001', country: 'FR' },
      note: null,
      placedAt: '2026-11-21T10:00:00.000Z',
    },
  },
  { type: 'OrderConfirmed', data: { orderId, confirmedAt: '2026-11-21T10:01:00.000Z' } },
  {
    type: 'PaymentReceived',
    data: {
      orderId,
      paymentId: randomUUID(),
      amount: { amountMinor: 4498, currency: 'EUR' },
      reference: 'bank-42',
      receivedAt: '2026-11-21T10:02:00.000Z',
    },
  },
  { type: 'OrderShipped', data: { orderId, shippedAt: '2026-11-21T10:03:00.000Z' } },
  { type: 'OrderDelivered', data: { orderId, deliveredAt: '2026-11-21T10:04:00.000Z' } },
];

export const eventsPerStream = lifecycle.length;

/** The n-th event appended: the (n mod 5)-th of an order's lifecycle, with a fresh id. */
export const orderEvent = (n: number): EventToAppend => ({
  id: randomUUID(),
  ...lifecycle[n % eventsPerStream]!,
  metadata,
});

/** The events' average size, data and metadata as JSON with the id and type. */
export const averageEventBytes = Math.round(
  lifecycle.reduce(
    (sum, e) => sum + JSON.stringify(e.data).length + JSON.stringify(metadata).length + 36 + e.type.length,
    0,
  ) / eventsPerStream,
);
