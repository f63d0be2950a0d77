import { expect } from 'vitest';
import type { TestService } from './test-service.ts';
import { orderActor } from './orders.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';
import { webhookAdmin } from './webhooks.ts';

// What the service logs about webhooks, as an operator reads it: shared by the embedded default's log test
// (test/operations/webhook-warnings.e2e.spec.ts) and the distributed mode's (test/distributed/).

export type LogLine = Record<string, unknown> & { level: number; msg: string };

/** A log's JSON lines. */
export const logLines = (text: string): LogLine[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine);

export const privateNetworksWarning =
  'webhooks may reach loopback, private and cloud metadata addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true): for local demos and tests only';

/**
 * A subscriber whose receiver answers 500, and an order to a distinctive street that it is sent: the
 * attempt fails, and the log must say so without the secret, the signature, the payload, the street, the
 * receiver's answer or its URL. The receiver stops with the rest of `stops`.
 */
export const orderToFailingReceiver = async (service: TestService, stops: (() => Promise<unknown>)[]) => {
  const receiver = await startWebhookReceiver(() => ({ status: 500, body: 'receiver-body-marker' }));
  stops.push(() => receiver.stop());
  const admin = await webhookAdmin(service);
  const subscription = await admin.register(receiver.url, ['order.created']);
  const customer = await orderActor(service, ['customer']);
  const street = 'Payload Marker Street 12';
  const shippingAddressId = await customer.addAddress({
    street,
    city: 'Lyon',
    postalCode: '69001',
    country: 'FR',
  });
  const placed = await customer.post('/orders', {
    items: [{ productId: '1001', quantity: 1 }],
    shippingAddressId,
  });
  expect(placed.status).toBe(201);
  /** What no log may hold once the attempt was made, by what it is. */
  const forbidden = () => ({
    secret: subscription.secret,
    signature: String(receiver.received[0]!.headers['webhook-signature']),
    street,
    'receiver answer': 'receiver-body-marker',
    url: receiver.url,
  });
  return { admin, subscription, receiver, forbidden };
};

/** The line at warn of that failed attempt, whose delivery and event the delivery log names. */
export const failedAttemptLine = (
  subscriptionId: string,
  attempt: { deliveryId: string; eventId: string },
) => ({
  level: 40,
  time: expect.any(Number),
  pid: expect.any(Number),
  hostname: expect.any(String),
  msg: 'webhook delivery failed',
  component: 'webhook-dispatcher',
  subscriptionId,
  deliveryId: attempt.deliveryId,
  eventId: attempt.eventId,
  eventType: 'order.created',
  attempt: 1,
  outcome: 'failed',
  statusCode: 500,
  reason: 'the receiver answered 500',
  next: expect.stringMatching(/^retry at \d{4}-\d\d-\d\dT/),
});
