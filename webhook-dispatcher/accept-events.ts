import type { Logger } from 'pino';
import type { ConsumedMessage } from '../infrastructure/bus/event-bus.ts';
import type { DispatcherRequest, PublicOrderEvent, Topics } from '../projections/public-events.ts';
import type { WebhookSubscriptionReadModel } from '../projections/webhook-subscription-read-model.ts';
import { deliveryIdFor, type DeliveryQueue, type NewDelivery } from './delivery-queue.ts';

/** The webhook request body (decisions.md): `{type, timestamp, data}`. */
export const webhookBody = (type: string, timestamp: string, data: unknown): string =>
  JSON.stringify({ type, timestamp, data });

export type AcceptEventsDeps = {
  topics: Topics;
  subscriptions: WebhookSubscriptionReadModel;
  /** Resolves once the subscription read model has applied the log up to this position. */
  subscriptionsReached: (position: bigint) => Promise<void>;
  queue: DeliveryQueue;
  now: () => number;
  logger: Logger;
};

/**
 * Turns a batch from the bus into durable deliveries, one per matching subscription, before the bus may
 * move on: once this resolves, the retry state holds them. An event is matched against the subscriptions
 * as they were when it happened (the read model is first brought up to its position), so a subscription
 * registered just before an order sees that order.
 */
export const createEventAcceptor = ({
  topics,
  subscriptions,
  subscriptionsReached,
  queue,
  now,
  logger,
}: AcceptEventsDeps) => {
  const parse = <T>(message: ConsumedMessage): T | null => {
    try {
      return JSON.parse(message.value) as T;
    } catch (error) {
      // A message no one can read would block its key forever; it is logged and skipped instead.
      logger.error(
        { err: error, topic: message.topic, key: message.key },
        'skipped an unreadable bus message',
      );
      return null;
    }
  };

  return async (batch: readonly ConsumedMessage[]): Promise<void> => {
    const orderEvents: PublicOrderEvent[] = [];
    const requests: DispatcherRequest[] = [];
    for (const message of batch) {
      if (message.topic === topics.orderEvents) {
        const event = parse<PublicOrderEvent>(message);
        if (event) orderEvents.push(event);
      } else if (message.topic === topics.webhookRequests) {
        const request = parse<DispatcherRequest>(message);
        if (request) requests.push(request);
      }
    }
    const latest = [...orderEvents, ...requests].reduce<bigint | null>((max, item) => {
      const position = BigInt(item.position);
      return max === null || position > max ? position : max;
    }, null);
    if (latest === null) return;
    await subscriptionsReached(latest);

    const at = now();
    const deliveries: NewDelivery[] = [];
    for (const event of orderEvents) {
      const body = webhookBody(event.type, event.occurredAt, event.data);
      for (const subscription of await subscriptions.subscribedTo(event.type)) {
        // A relay catching up may bring events from before a subscription existed: they are not its own.
        if (BigInt(subscription.registeredPosition) >= BigInt(event.position)) continue;
        deliveries.push({
          id: deliveryIdFor(subscription.id, event.id),
          subscriptionId: subscription.id,
          eventId: event.id,
          eventType: event.type,
          orderingKey: event.orderId,
          sequence: event.revision,
          body,
          nextAttemptAt: at,
          createdAt: at,
        });
      }
    }
    for (const request of requests.filter((r) => r.type === 'webhook.test')) {
      deliveries.push({
        id: deliveryIdFor(request.subscriptionId, request.id),
        subscriptionId: request.subscriptionId,
        eventId: request.id,
        eventType: 'webhook.test',
        orderingKey: request.id,
        sequence: 0,
        body: webhookBody('webhook.test', request.occurredAt, {
          subscriptionId: request.subscriptionId,
          message: 'A test event, sent because an administrator asked for one.',
        }),
        nextAttemptAt: at,
        createdAt: at,
      });
    }
    await queue.enqueue(deliveries);
    for (const request of requests) {
      if (request.type === 'webhook.redelivery' && request.deliveryId !== null) {
        await queue.redeliver(request.deliveryId, at);
      }
    }
  };
};
