import { subscriptionEvents, type SubscriptionEvent } from './subscription-events.ts';
import { createEventCodec, type StoredEventParts } from '../shared/event-codec.ts';

/** The one codec of webhook subscription events: every process writes and reads them through it. */
export const subscriptionCodec = createEventCodec(subscriptionEvents);

/** A stored event of a subscription's stream, as the current version; undefined for any other event. */
export const decodeSubscriptionEvent = (event: StoredEventParts): SubscriptionEvent | undefined =>
  subscriptionCodec.decode({
    type: event.type,
    data: event.data,
    schemaVersion: event.metadata.schemaVersion,
  });
