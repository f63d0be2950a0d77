import { orderEvents, type OrderEvent } from '../../domain/orders/order-events.ts';
import { orderPersonalData } from '../../domain/orders/personal-data.ts';
import type { PersonalDataKeyring } from '../../infrastructure/personal-data/keyring.ts';
import { eventSealer } from '../../infrastructure/personal-data/seal-events.ts';
import { createEventCodec } from '../../infrastructure/event-sourcing/event-codec.ts';
import type { StreamEvent } from '../../infrastructure/event-store/event-store.ts';

/** The one codec of order events: every process writes and reads them through it. */
export const orderCodec = createEventCodec(orderEvents);

/** A stored event of an order's stream, as the current version; undefined for any other event. */
export const decodeOrderEvent = (
  event: Pick<StreamEvent, 'type' | 'data' | 'metadata'>,
): OrderEvent | undefined =>
  orderCodec.decode({ type: event.type, data: event.data, schemaVersion: event.metadata.schemaVersion });

/** Seals the personal fields of new order events (domain/orders/personal-data.ts) before they are encoded. */
export const orderEventSealer = (keyring: Pick<PersonalDataKeyring, 'sealFields'>) =>
  eventSealer(orderPersonalData, keyring);
