import type { OrderEvent } from '../../domain/orders/order-events.ts';
import { evolveDetails, type OrderDetails } from '../../domain/orders/order-details.ts';
import type { TestEventType, WebhookEventKind } from '../../domain/webhook-subscriptions/subscription.ts';
import { publicData } from './public-events.ts';

/**
 * The example order every test event of an order's kind is built from (POST /webhooks/{id}/test with an
 * `eventType`): fixed, the same on every call and in every process, and nobody's. Its ids are all zeros but
 * for the last digits, its customer is `example-customer`, its address and note say that it is an example:
 * a receiver can tell one at a glance, beside the envelope's `"test": true`. It is placed, paid in part,
 * confirmed and shipped; each kind's example is the public event of one of these steps, made by the relay's
 * own mapping (`publicData`), so that it has exactly the shape a real event of that kind has.
 */
export const exampleOrderId = '00000000-0000-4000-8000-000000000001';
const examplePaymentId = '00000000-0000-4000-8000-000000000002';

const placed: OrderEvent = {
  type: 'OrderPlaced',
  data: {
    orderId: exampleOrderId,
    customerId: 'example-customer',
    items: [
      {
        productId: '1001',
        productName: 'Example product',
        quantity: 2,
        unitPrice: { amountMinor: 1999, currency: 'EUR' },
      },
    ],
    total: { amountMinor: 3998, currency: 'EUR' },
    shippingAddress: {
      street: '1 Example Street',
      city: 'Exampleville',
      postalCode: '00000',
      country: 'FR',
    },
    note: 'An example order sent as a test event: no real customer’s.',
    placedAt: '2026-01-01T09:00:00.000Z',
  },
};
const paid: OrderEvent = {
  type: 'PaymentReceived',
  data: {
    orderId: exampleOrderId,
    paymentId: examplePaymentId,
    amount: { amountMinor: 1000, currency: 'EUR' },
    reference: 'example-payment',
    receivedAt: '2026-01-01T09:05:00.000Z',
  },
};
const confirmed: OrderEvent = {
  type: 'OrderConfirmed',
  data: { orderId: exampleOrderId, confirmedAt: '2026-01-01T09:10:00.000Z' },
};
const shipped: OrderEvent = {
  type: 'OrderShipped',
  data: {
    orderId: exampleOrderId,
    shippedAt: '2026-01-02T14:00:00.000Z',
    carrier: 'Example Carrier',
    trackingNumber: 'EXAMPLE-0001',
    trackingUrl: 'https://tracking.example/EXAMPLE-0001',
  },
};

/** Each public kind's example: the public event of the step that makes one (a status change: shipping). */
const exampleSteps: Record<WebhookEventKind, OrderEvent> = {
  'order.created': placed,
  'payment.received': paid,
  'order.status_changed': shipped,
};
const history = [placed, paid, confirmed, shipped];

const exampleOf = (kind: WebhookEventKind): unknown => {
  const step = exampleSteps[kind];
  let before: OrderDetails | null = null;
  for (const event of history) {
    const after = evolveDetails(before, event);
    if (event === step) {
      const [type, data] = publicData(event, before, after);
      if (type !== kind) throw new Error(`the example of ${kind} made ${type}`);
      return data;
    }
    before = after;
  }
  throw new Error(`no example step for ${kind}`);
};

/** The examples, made once: they never change. */
const examples = new Map<WebhookEventKind, unknown>(
  (Object.keys(exampleSteps) as WebhookEventKind[]).map((kind) => [kind, exampleOf(kind)]),
);

/**
 * The `data` of a test event of `type` for one subscription: `webhook.test`'s own (the subscription and a
 * message), or the example order's public event of that kind.
 */
export const testEventData = (type: TestEventType, subscriptionId: string): unknown =>
  type === 'webhook.test'
    ? { subscriptionId, message: 'A test event, sent because an administrator asked for one.' }
    : examples.get(type);
