import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { orderStatuses } from '../domain/orders/order.ts';
import { moneySchema, timestamp } from './common-schemas.ts';
import { orderSchema } from './order-operations.ts';

const deliveryHeaders = z.object({
  'webhook-id': z
    .string()
    .meta({ description: 'The event’s id: the same on every retry; deduplicate by it.' }),
  'webhook-timestamp': z.string().regex(/^\d+$/).meta({ description: 'Unix seconds of this attempt.' }),
  'webhook-signature': z.string().meta({
    description:
      '`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the subscription’s secret; during a rotation, one signature per live secret, space-separated.',
  }),
});

const testMark = z.literal(true).optional().meta({
  description:
    'Present, and true, only on a test event an admin asked for (POST /webhooks/{id}/test): its data is the fixed example order’s (or, for webhook.test, the subscription’s), not a real one.',
});

const envelope = <Type extends string>(type: Type, data: z.ZodType, id: string) =>
  z.strictObject({ type: z.literal(type), timestamp, data, test: testMark }).meta({ id });

/** Every request the service sends subscribers, each with the schema of its body. */
export const webhookEvents = [
  {
    name: 'order.created',
    summary: 'An order was created',
    body: envelope('order.created', orderSchema, 'OrderCreatedEvent'),
  },
  {
    name: 'order.status_changed',
    summary: 'The status of an order changed',
    body: envelope(
      'order.status_changed',
      z.strictObject({
        orderId: z.uuid(),
        from: z.enum(orderStatuses),
        to: z.enum(orderStatuses),
        order: orderSchema,
      }),
      'OrderStatusChangedEvent',
    ),
  },
  {
    name: 'payment.received',
    summary: 'A payment was received',
    body: envelope(
      'payment.received',
      z.strictObject({
        orderId: z.uuid(),
        payment: z.strictObject({
          id: z.uuid(),
          amount: moneySchema,
          reference: z.string(),
          receivedAt: timestamp,
        }),
      }),
      'PaymentReceivedEvent',
    ),
  },
  {
    name: 'webhook.test',
    summary: 'A test event an admin asked for (POST /webhooks/{id}/test)',
    body: envelope(
      'webhook.test',
      z.strictObject({ subscriptionId: z.uuid(), message: z.string() }),
      'WebhookTestEvent',
    ),
  },
];

/** The requests the service sends to subscribers, in the document's `webhooks` section. */
export const registerWebhookEvents = (registry: OpenAPIRegistry): void => {
  for (const { name, summary, body } of webhookEvents) {
    registry.registerWebhook({
      method: 'post',
      path: name,
      operationId: `on-${name}`,
      tags: ['webhooks'],
      summary,
      description:
        'Answer any 2xx within 10 s. Anything else is retried with exponential backoff (about 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h), then dead-lettered; 410 Gone disables the subscription. One order’s events reach you in order.\n\n' +
        '**Authentication:** the service sends no credential of yours; it signs each request (Standard Webhooks). Verify `webhook-signature` with the subscription’s secret over `webhook-id`, `webhook-timestamp` and the raw body (any Standard Webhooks library does, refusing a timestamp far from your clock). Hence no security scheme here: OpenAPI’s schemes describe credentials a client presents, not a signature of the body.',
      // The receiver checks the signature headers above, not a credential (see the description).
      security: [],
      request: { headers: deliveryHeaders, body: { content: { 'application/json': { schema: body } } } },
      responses: { 200: { description: 'Received (any 2xx).' } },
    });
  }
};
