import { isOrderStream } from '../../domain/orders/order.ts';
import { isNextRevision } from '../../infrastructure/event-sourcing/revision-guard.ts';
import type { GlobalPosition, RecordedEvent } from '../../infrastructure/event-store/event-store.ts';
import { decodeOrderEvent } from '../../domain/orders/order-codec.ts';
import { evolveDetails, type OrderDetails } from '../../domain/orders/order-details.ts';

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
  const folded = foldOrder(current === null ? null : foldedOf(current), events);
  return folded && viewOf(folded);
};

/** An order's details folded so far, and the stream revision and log position of its last event. */
export type FoldedOrder = { details: OrderDetails; revision: number; position: GlobalPosition };

/**
 * foldOrderView without building the view: a bulk replay that folds an order over several batches keeps
 * it so, and builds its view once, to write it (viewOf).
 */
export const foldOrder = (
  current: Pick<FoldedOrder, 'details' | 'revision'> | null,
  events: readonly RecordedEvent[],
): FoldedOrder | undefined => {
  let details: OrderDetails | null = current?.details ?? null;
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
  return { details, revision: last.revision, position: last.position };
};

export const viewOf = ({ details, revision, position }: FoldedOrder): OrderView => ({
  ...details,
  revision,
  position: position.toString(),
});

/** A stored view as the fold's starting point. */
export const foldedOf = ({ revision, position: _position, ...details }: OrderView) => ({
  details,
  revision,
});
