import { evolve, initialState } from '../domain/order/order-decider.ts';
import { asOrderEvent } from '../domain/order/order-events.ts';
import type { Order, PlacedOrder } from '../domain/order/order.ts';
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
export const nextOrderView = (current: OrderView | null, event: RecordedEvent): OrderView | undefined =>
  foldOrderView(current, [event]);

/**
 * nextOrderView over several events of one order's stream, in log order: the state is evolved through them
 * all and the view built once, at the end (a bulk replay applies about five events per order per batch).
 */
export const foldOrderView = (
  current: OrderView | null,
  events: readonly RecordedEvent[],
): OrderView | undefined => {
  let state: Order | undefined;
  let revision = current?.revision;
  let last: RecordedEvent | undefined;
  for (const event of events) {
    if (!isOrderStream(event.streamId)) continue;
    const orderEvent = asOrderEvent(event);
    if (!orderEvent) continue;
    if (!isNextRevision(revision, event)) continue;
    state = evolve(state ?? (current ? stateOf(current) : initialState()), orderEvent);
    if (state.status === 'none') throw new Error(`${event.streamId}: ${event.type} left no order`);
    revision = event.revision;
    last = event;
  }
  if (!state || state.status === 'none' || !last) return undefined;
  return { ...state, revision: last.revision, position: last.position.toString() };
};

const stateOf = ({ revision: _revision, position: _position, ...order }: OrderView): PlacedOrder => order;
