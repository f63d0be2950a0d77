import { createEventCodec, type StoredEventParts } from '../shared/event-codec.ts';
import { orderEvents, type OrderEvent } from './order-events.ts';

/** The one codec of order events: every process writes and reads them through it. */
export const orderCodec = createEventCodec(orderEvents);

/** A stored event of an order's stream, as the current version; undefined for any other event. */
export const decodeOrderEvent = (event: StoredEventParts): OrderEvent | undefined =>
  orderCodec.decode({ type: event.type, data: event.data, schemaVersion: event.metadata.schemaVersion });
