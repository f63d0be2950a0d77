/**
 * The service's words the console lists in its filters and charts: order statuses, event types, delivery
 * outcomes. A unit test keeps them equal to the service's own lists (domain/, the OpenAPI document).
 */

/** The order lifecycle's statuses (domain/orders/order.ts). */
export const orderStatuses = ['pending', 'confirmed', 'shipped', 'delivered', 'cancelled'];

/** The event types of the log: the order's and the webhook subscription's (domain/). */
export const eventTypes = [
  'OrderPlaced',
  'OrderConfirmed',
  'OrderShipped',
  'OrderDelivered',
  'OrderCancelled',
  'PaymentReceived',
  'WebhookSubscriptionRegistered',
  'WebhookSubscriptionChanged',
  'WebhookSecretRotated',
  'WebhookSubscriptionDisabled',
  'WebhookSubscriptionRemoved',
  'WebhookTestRequested',
  'WebhookRedeliveryRequested',
];

/** Outcomes of a delivery attempt (GET /webhooks/{id}/deliveries), in the order the chart stacks them. */
export const deliveryOutcomes = [
  'delivered',
  'failed',
  'timeout',
  'network-error',
  'refused',
  'gone',
  'cancelled',
];

/** The kinds of event a webhook subscription may take (domain/webhook-subscriptions/subscription.ts). */
export const webhookEventKinds = ['order.created', 'order.status_changed', 'payment.received'];

/** What a test event can be of (POST /webhooks/{id}/test): webhook.test, and an example of each kind. */
export const testEventTypes = ['webhook.test', ...webhookEventKinds];
