import { orderEventTypes, type OrderEvent } from './order.ts';

/** Narrows a stored event (type and data) to an order event, or says it is none. */
export const asOrderEvent = (event: {
  type: string;
  data: Record<string, unknown>;
}): OrderEvent | undefined =>
  (orderEventTypes as readonly string[]).includes(event.type) ? (event as unknown as OrderEvent) : undefined;
