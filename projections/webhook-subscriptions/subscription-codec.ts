import {
  subscriptionEvents,
  type SubscriptionEvent,
} from '../../domain/webhook-subscriptions/subscription-events.ts';
import { createEventCodec } from '../../infrastructure/event-sourcing/event-codec.ts';
import type { StreamEvent } from '../../infrastructure/event-store/event-store.ts';

/** The one codec of webhook subscription events: every process writes and reads them through it. */
export const subscriptionCodec = createEventCodec(subscriptionEvents);

/** A stored event of a subscription's stream, as the current version; undefined for any other event. */
export const decodeSubscriptionEvent = (
  event: Pick<StreamEvent, 'type' | 'data' | 'metadata'>,
): SubscriptionEvent | undefined =>
  subscriptionCodec.decode({
    type: event.type,
    data: event.data,
    schemaVersion: event.metadata.schemaVersion,
  });
