import type { OrderEvent } from '../../domain/orders/order-events.ts';
import { isOrderStream, orderIdOf } from '../../domain/orders/order.ts';
import type { TestEventType, WebhookEventKind } from '../../domain/webhook-subscriptions/subscription.ts';
import type { EventStore, RecordedEvent } from '../../infrastructure/event-store/event-store.ts';
import { jsonMessage, type BusMessage } from '../../infrastructure/bus/event-bus.ts';
import { decodeOrderEvent } from '../../domain/orders/order-codec.ts';
import { evolveDetails, type OrderDetails } from '../../domain/orders/order-details.ts';
import { orderResource } from '../../domain/orders/order-resource.ts';
import { isSubscriptionStream, subscriptionIdOf } from '../../domain/webhook-subscriptions/subscription.ts';
import { decodeSubscriptionEvent } from '../../domain/webhook-subscriptions/subscription-codec.ts';

/**
 * The one place where domain events become public ones (order.created, order.status_changed,
 * payment.received): the domain's own event names and shapes stay inside the service.
 */
export type PublicOrderEvent = {
  /** The domain event's id: consumers deduplicate by it; webhooks send it as `webhook-id`. */
  id: string;
  type: WebhookEventKind;
  occurredAt: string;
  orderId: string;
  /** The order's stream revision: one order's events in order. */
  revision: number;
  /** Log position, as a decimal string: lets a consumer wait for read models to reach it. */
  position: string;
  /**
   * The position of the last subscription event at or before this one (or, for the first events after the
   * relay started, this event's own): a consumer whose copy of the subscriptions is at least that recent
   * can match the event without reading them again.
   */
  subscriptionsChangedAt: string;
  data: unknown;
};

/** What the admin API asks of the dispatcher, relayed from the subscription's stream like everything else. */
export type DispatcherRequest = {
  id: string;
  type: 'webhook.test' | 'webhook.redelivery';
  occurredAt: string;
  subscriptionId: string;
  position: string;
  /** For a redelivery: which delivery. */
  deliveryId: string | null;
  /** For a test: the event type the admin asked an example of (absent from an earlier relay: webhook.test). */
  eventType?: TestEventType;
};

export type Topics = {
  orderEvents: string;
  webhookRequests: string;
  /** Where the dispatcher puts the messages of the other two that it cannot read. */
  deadLetter: string;
};

const statusChanges: ReadonlySet<OrderEvent['type']> = new Set([
  'OrderConfirmed',
  'OrderShipped',
  'OrderDelivered',
  'OrderCancelled',
]);

/** An order event's public type and data, from the order before it (null for the first) and after it. */
export const publicData = (
  event: OrderEvent,
  before: OrderDetails | null,
  after: OrderDetails,
): [WebhookEventKind, unknown] => {
  const order = orderResource(after);
  if (event.type === 'OrderPlaced') return ['order.created', order];
  if (event.type === 'PaymentReceived') {
    const payment = order.payments.find((p) => p.id === event.data.paymentId);
    return ['payment.received', { orderId: after.id, payment }];
  }
  if (statusChanges.has(event.type) && before !== null) {
    return ['order.status_changed', { orderId: after.id, from: before.status, to: after.status, order }];
  }
  throw new Error(`${event.type} has no public event`);
};

/**
 * Maps log events to bus messages. A public event carries the order after the event (and for a status
 * change, the status before), so the mapper keeps recent orders' states, reading a stream only for an order
 * it has not seen at the previous revision.
 */
export const createPublicEventMapper = ({
  eventStore,
  topics,
  cacheSize = 2_000,
}: {
  eventStore: EventStore;
  topics: Topics;
  /**
   * Orders whose last state is kept (about 600 bytes of heap each). Only an order's next event reads it:
   * the orders of the last few seconds' load, whose payments and status changes follow soon; an order
   * not kept costs one read of its stream, as after a restart.
   */
  cacheSize?: number;
}) => {
  const states = new Map<string, { revision: number; order: OrderDetails | null }>();
  /**
   * Any subscription event before the first event this mapper sees is older than that event: its position
   * stands for them until a subscription event comes by.
   */
  let subscriptionsChangedAt: bigint | null = null;

  /** The order before this event: null before its first; undefined when not kept, to be read. */
  const keptBefore = (event: RecordedEvent): OrderDetails | null | undefined => {
    if (event.revision === 0) return null;
    const kept = states.get(event.streamId);
    return kept && kept.revision === event.revision - 1 ? kept.order : undefined;
  };

  const readBefore = async (event: RecordedEvent): Promise<OrderDetails | null> => {
    const history = await eventStore.readStream(event.streamId, { maxCount: event.revision });
    let order: OrderDetails | null = null;
    for (const stored of history) {
      const known = decodeOrderEvent(stored);
      if (known) order = evolveDetails(order, known);
    }
    return order;
  };

  const remember = (streamId: string, revision: number, order: OrderDetails | null) => {
    states.delete(streamId);
    states.set(streamId, { revision, order });
    if (states.size > cacheSize) states.delete(states.keys().next().value!);
  };

  const orderMessage = (
    event: RecordedEvent,
    orderEvent: OrderEvent,
    before: OrderDetails | null,
  ): BusMessage => {
    const after = evolveDetails(before, orderEvent);
    remember(event.streamId, event.revision, after);
    const [type, data] = publicData(orderEvent, before, after);
    const value: PublicOrderEvent = {
      id: event.id,
      type,
      occurredAt: event.metadata.occurredAt,
      orderId: orderIdOf(event.streamId),
      revision: event.revision,
      position: event.position.toString(),
      subscriptionsChangedAt: (subscriptionsChangedAt ?? event.position).toString(),
      data,
    };
    return jsonMessage(value.orderId, value);
  };

  /** Through the codec: a test requested before the type could be chosen reads as webhook.test. */
  const testEventTypeOf = (event: RecordedEvent): TestEventType => {
    const decoded = decodeSubscriptionEvent(event);
    return decoded?.type === 'WebhookTestRequested' ? decoded.data.eventType : 'webhook.test';
  };

  const requestMessage = (event: RecordedEvent): BusMessage | null => {
    if (event.type !== 'WebhookTestRequested' && event.type !== 'WebhookRedeliveryRequested') return null;
    const subscriptionId = subscriptionIdOf(event.streamId);
    const value: DispatcherRequest = {
      id: event.id,
      type: event.type === 'WebhookTestRequested' ? 'webhook.test' : 'webhook.redelivery',
      occurredAt: event.metadata.occurredAt,
      subscriptionId,
      position: event.position.toString(),
      deliveryId: typeof event.data['deliveryId'] === 'string' ? event.data['deliveryId'] : null,
      ...(event.type === 'WebhookTestRequested' ? { eventType: testEventTypeOf(event) } : {}),
    };
    return { key: subscriptionId, value: JSON.stringify(value) };
  };

  return {
    /** The batch's public messages per topic, in log order. */
    async toMessages(events: readonly RecordedEvent[]): Promise<Map<string, BusMessage[]>> {
      const byTopic = new Map<string, BusMessage[]>();
      const add = (topic: string, message: BusMessage | null) => {
        if (!message) return;
        const messages = byTopic.get(topic) ?? [];
        messages.push(message);
        byTopic.set(topic, messages);
      };
      subscriptionsChangedAt ??= events[0]?.position ?? null;
      for (const event of events) {
        if (isOrderStream(event.streamId)) {
          const orderEvent = decodeOrderEvent(event);
          if (!orderEvent) continue;
          // Awaited only for an order not kept: a relay catching up runs this for every event of the log.
          const before = keptBefore(event);
          add(
            topics.orderEvents,
            orderMessage(event, orderEvent, before === undefined ? await readBefore(event) : before),
          );
        } else if (isSubscriptionStream(event.streamId)) {
          subscriptionsChangedAt = event.position;
          add(topics.webhookRequests, requestMessage(event));
        }
      }
      return byTopic;
    },
  };
};
