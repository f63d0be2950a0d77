import { replay } from '../decider.ts';
import { orderDecider } from './order-decider.ts';
import { orderEventTypes, type Order, type OrderEvent } from './order.ts';

/** Narrows a stored event (type and data) to an order event, or says it is none. */
export const asOrderEvent = (event: {
  type: string;
  data: Record<string, unknown>;
}): OrderEvent | undefined =>
  (orderEventTypes as readonly string[]).includes(event.type) ? (event as unknown as OrderEvent) : undefined;

/** The order a stored history describes: its order events replayed through the decider. */
export const orderFromHistory = (
  history: Iterable<{ type: string; data: Record<string, unknown> }>,
): Order => {
  const events: OrderEvent[] = [];
  for (const stored of history) {
    const event = asOrderEvent(stored);
    if (event) events.push(event);
  }
  return replay(orderDecider, events);
};
