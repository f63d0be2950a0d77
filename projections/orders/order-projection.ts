import { isOrderStream } from '../../domain/orders/order.ts';
import { isNextRevision } from '../../infrastructure/event-sourcing/revision-guard.ts';
import type { RecordedEvent } from '../../infrastructure/event-store/event-store.ts';
import { decodeOrderEvent } from './order-codec.ts';
import { evolveDetails, type OrderDetails } from './order-details.ts';

/** An order as the read model keeps it: its details, and where in its stream and in the log they are. */
export type OrderView = OrderDetails & {
  /** Stream revision of the last event applied: guards against applying an event twice or out of order. */
  revision: number;
  /** Global position of that event, as a decimal string (positions exceed 2^53). */
  position: string;
};

/**
 * The one fold every order read model adapter uses: the details' own evolve, guarded by the stream
 * revision. Returns the new view, or undefined when the event changes nothing (another stream, a kind of
 * event that is no order's, or one applied already).
 */
export const nextOrderView = (current: OrderView | null, event: RecordedEvent): OrderView | undefined =>
  foldOrderView(current, [event]);

/**
 * nextOrderView over several events of one order's stream, in log order: the details are evolved through
 * them all and the view built once, at the end (a bulk replay applies about five events per order per batch).
 */
export const foldOrderView = (
  current: OrderView | null,
  events: readonly RecordedEvent[],
): OrderView | undefined => {
  let details: OrderDetails | null = current === null ? null : detailsOf(current);
  let revision = current?.revision;
  let last: RecordedEvent | undefined;
  for (const event of events) {
    if (!isOrderStream(event.streamId)) continue;
    const orderEvent = decodeOrderEvent(event);
    if (!orderEvent) continue;
    if (!isNextRevision(revision, event)) continue;
    details = evolveDetails(details, orderEvent);
    revision = event.revision;
    last = event;
  }
  if (!details || !last) return undefined;
  return { ...details, revision: last.revision, position: last.position.toString() };
};

const detailsOf = ({ revision: _revision, position: _position, ...details }: OrderView): OrderDetails =>
  details;
