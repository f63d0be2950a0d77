import { evolve, initialState } from '../domain/order/order-decider.ts';
import { asOrderEvent } from '../domain/order/order-events.ts';
import type { PlacedOrder } from '../domain/order/order.ts';
import type { RecordedEvent } from '../infrastructure/event-store/event-store.ts';
import type { OrderView } from './order-view.ts';
import { isNextRevision } from './revision-guard.ts';

const orderStreamPrefix = 'order-';

export const isOrderStream = (streamId: string): boolean => streamId.startsWith(orderStreamPrefix);
export const orderIdOf = (streamId: string): string => streamId.slice(orderStreamPrefix.length);

/**
 * The one fold every order read model adapter uses: the decider's own evolve, guarded by the stream
 * revision. Returns the new view, or undefined when the event changes nothing (another stream, a kind of
 * event that is no order's, or one applied already).
 */
export const nextOrderView = (current: OrderView | null, event: RecordedEvent): OrderView | undefined => {
  if (!isOrderStream(event.streamId)) return undefined;
  const orderEvent = asOrderEvent(event);
  if (!orderEvent) return undefined;
  if (!isNextRevision(current?.revision, event)) return undefined;
  const state = current ? stateOf(current) : initialState();
  const next = evolve(state, orderEvent);
  if (next.status === 'none') throw new Error(`${event.streamId}: ${event.type} left no order`);
  return { ...next, revision: event.revision, position: event.position.toString() };
};

const stateOf = ({ revision: _revision, position: _position, ...order }: OrderView): PlacedOrder => order;
