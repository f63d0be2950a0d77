import type { Logger } from 'pino';
import { z } from 'zod';
import { testEventTypes, webhookEventKinds } from '../domain/webhook-subscriptions/subscription.ts';
import type { ConsumedMessage } from '../infrastructure/bus/event-bus.ts';
import { testEventData } from '../projections/relay/example-events.ts';
import type { DispatcherRequest, PublicOrderEvent, Topics } from '../projections/relay/public-events.ts';
import {
  deliveryIdFor,
  type DeliveryQueue,
  type NewDelivery,
} from '../webhooks/deliveries/delivery-queue.ts';
import type { SubscriptionCache } from './subscription-cache.ts';

/**
 * The webhook request body (docs/webhooks.md): `{type, timestamp, data}`, and `"test": true` on a test event
 * an admin asked for (webhook.test, or an example of another type).
 */
export const webhookBody = (type: string, timestamp: string, data: unknown, { test = false } = {}): string =>
  JSON.stringify(test ? { type, timestamp, data, test: true } : { type, timestamp, data });

export type AcceptEventsDeps = {
  topics: Topics;
  subscriptions: SubscriptionCache;
  /** Makes the deliveries durable (and, where it can, this instance's to deliver); resolves once they are. */
  enqueue: (deliveries: readonly NewDelivery[]) => Promise<void>;
  /** For an admin's redelivery; `wake` then tells the worker to look in the store. */
  queue: DeliveryQueue;
  wake: () => void;
  /**
   * Learns the lines another dispatcher left pending; called before the first batch of a partition and
   * whenever a partition's offsets jump (another member of the group handled it meanwhile).
   */
  fence: () => Promise<void>;
  /** Puts a message no one can read on the dead-letter topic; resolves once it is durably there. */
  deadLetter: (message: ConsumedMessage, reason: string) => Promise<void>;
  now: () => number;
  logger: Logger;
};

const positionPattern = /^\d{1,40}$/;
const position = z.string().regex(positionPattern);
export const publicOrderEvent = z.object({
  id: z.string().min(1),
  type: z.enum(webhookEventKinds),
  occurredAt: z.string().min(1),
  orderId: z.string().min(1),
  revision: z.number().int().min(0),
  position,
  /** Absent from the messages of an earlier relay: then the event's own position stands for it. */
  subscriptionsChangedAt: position.optional(),
  data: z.unknown(),
});
const dispatcherRequest = z.object({
  id: z.string().min(1),
  type: z.enum(['webhook.test', 'webhook.redelivery']),
  occurredAt: z.string().min(1),
  subscriptionId: z.string().min(1),
  position,
  deliveryId: z.string().min(1).nullable(),
  /** Absent from the messages of an earlier relay: then a test is of webhook.test. */
  eventType: z.enum(testEventTypes).optional(),
});

const webhookEventKindSet: ReadonlySet<unknown> = new Set(webhookEventKinds);
const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isPosition = (value: unknown): value is string =>
  typeof value === 'string' && positionPattern.test(value);

/**
 * What `publicOrderEvent` accepts, checked by hand: the dispatcher reads every event of the log (a first
 * start on a long log reads millions), and zod's parse of them was 8 % of that start. It accepts exactly
 * what the schema accepts (a test holds the two against each other); a message it refuses goes through the
 * schema, for the reason. What it accepts is used as it is, not copied as zod's parse would (unknown keys
 * stay): on the in-process bus every consumer shares that object, and reads it only.
 */
export const isPublicOrderEvent = (value: unknown): value is z.infer<typeof publicOrderEvent> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const event = value as Record<string, unknown>;
  const revision = event['revision'];
  const subscriptionsChangedAt = event['subscriptionsChangedAt'];
  return (
    isNonEmptyString(event['id']) &&
    webhookEventKindSet.has(event['type']) &&
    isNonEmptyString(event['occurredAt']) &&
    isNonEmptyString(event['orderId']) &&
    typeof revision === 'number' &&
    Number.isSafeInteger(revision) &&
    revision >= 0 &&
    isPosition(event['position']) &&
    (subscriptionsChangedAt === undefined || isPosition(subscriptionsChangedAt)) &&
    // Any value, undefined too, but the key must be there.
    'data' in event
  );
};

const readMessage = <T>(
  schema: z.ZodType<T>,
  message: ConsumedMessage,
  isValid?: (value: unknown) => value is T,
): { value: T } | { reason: string } => {
  // A bus in this process hands on what the relay parsed the value from: validated all the same (and its
  // value, the text, is not made).
  let json: unknown = message.parsed;
  if (json === undefined) {
    try {
      json = JSON.parse(message.value);
    } catch {
      return { reason: 'the value is not JSON' };
    }
  }
  if (isValid?.(json)) return { value: json };
  const parsed = schema.safeParse(json);
  return parsed.success
    ? { value: parsed.data }
    : { reason: `the value is not a message of this topic: ${z.prettifyError(parsed.error)}` };
};

/**
 * Turns a batch from the bus into durable deliveries, one per matching subscription, before the bus may
 * move on: once this resolves, the retry state holds them. An event is matched against the subscriptions
 * as they were when it happened (the copy of them is first brought up to the last subscription change
 * before it), so a subscription registered just before an order sees that order; while no subscription
 * changes, that reads nothing.
 */
export const createEventAcceptor = ({
  topics,
  subscriptions,
  enqueue,
  queue,
  wake,
  fence,
  deadLetter,
  now,
  logger,
}: AcceptEventsDeps) => {
  /** Per topic and partition: the offset this dispatcher expects next. */
  const nextOffsets = new Map<string, bigint>();
  const partitionOf = (message: ConsumedMessage) => `${message.topic}/${message.source!.partition}`;
  const handedOver = (batch: readonly ConsumedMessage[]) => {
    const seen = new Set<string>();
    return batch.some((message) => {
      if (!message.source) return false;
      const where = partitionOf(message);
      if (seen.has(where)) return false;
      seen.add(where);
      return nextOffsets.get(where) !== BigInt(message.source.offset);
    });
  };
  const handled = (batch: readonly ConsumedMessage[]) => {
    for (const message of batch) {
      if (message.source) nextOffsets.set(partitionOf(message), BigInt(message.source.offset) + 1n);
    }
  };

  const accept = async (batch: readonly ConsumedMessage[]): Promise<void> => {
    const orderEvents: PublicOrderEvent[] = [];
    const requests: DispatcherRequest[] = [];
    const unreadable: { message: ConsumedMessage; reason: string }[] = [];
    const read = <T>(
      schema: z.ZodType<T>,
      message: ConsumedMessage,
      into: T[],
      isValid?: (value: unknown) => value is T,
    ) => {
      const result = readMessage(schema, message, isValid);
      if ('value' in result) into.push(result.value);
      else unreadable.push({ message, reason: result.reason });
    };
    for (const message of batch) {
      if (message.topic === topics.orderEvents)
        read(publicOrderEvent, message, orderEvents, isPublicOrderEvent);
      else if (message.topic === topics.webhookRequests) read(dispatcherRequest, message, requests);
    }
    // A message no one can read would block its partition forever: it goes to the dead-letter topic,
    // where an operator can look at it, and the batch moves on. Failures to reach a store are not
    // dead-lettered: they throw, and the bus hands the batch again until they pass.
    for (const { message, reason } of unreadable) {
      logger.error(
        { topic: message.topic, key: message.key, reason },
        'dead-lettered an unreadable bus message',
      );
      await deadLetter(message, reason);
    }
    // What the copy of the subscriptions must reflect: for an order event, the last subscription change
    // before it; for an admin's request, the request itself (it names its subscription).
    const needed = [
      ...orderEvents.map((event) => event.subscriptionsChangedAt ?? event.position),
      ...requests.map((request) => request.position),
    ].reduce<bigint | null>((max, item) => {
      const position = BigInt(item);
      return max === null || position > max ? position : max;
    }, null);
    if (needed === null) return;
    await subscriptions.reach(needed);

    const at = now();
    const deliveries: NewDelivery[] = [];
    for (const event of orderEvents) {
      // The body is built once per event, and only for an event some subscription takes (a relay catching
      // up on a long log brings many that none does).
      let body: string | undefined;
      for (const subscription of subscriptions.subscribedTo(event.type)) {
        // A relay catching up may bring events from before a subscription existed: they are not its own.
        if (BigInt(subscription.registeredPosition) >= BigInt(event.position)) continue;
        body ??= webhookBody(event.type, event.occurredAt, event.data);
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
    // A test event, of the type asked for, whether the subscription takes that type or not (the admin asked
    // for it by name): delivered, signed and logged like any other, on an ordering line of its own.
    for (const request of requests.filter((r) => r.type === 'webhook.test')) {
      const eventType = request.eventType ?? 'webhook.test';
      deliveries.push({
        id: deliveryIdFor(request.subscriptionId, request.id),
        subscriptionId: request.subscriptionId,
        eventId: request.id,
        eventType,
        orderingKey: request.id,
        sequence: 0,
        body: webhookBody(eventType, request.occurredAt, testEventData(eventType, request.subscriptionId), {
          test: true,
        }),
        nextAttemptAt: at,
        createdAt: at,
      });
    }
    if (deliveries.length > 0) await enqueue(deliveries);
    for (const request of requests) {
      if (request.type === 'webhook.redelivery' && request.deliveryId !== null) {
        await queue.redeliver(request.deliveryId, at);
        wake();
      }
    }
  };
  return async (batch: readonly ConsumedMessage[]): Promise<void> => {
    if (handedOver(batch)) await fence();
    await accept(batch);
    handled(batch);
  };
};
