import type { OrderStatus } from '../../domain/orders/order.ts';
import type { RecordedEvent } from '../../infrastructure/event-store/event-store.ts';
import type { OrderView } from './order-projection.ts';

export type OrderListQuery = {
  /** Only this customer's orders (customers see nothing else). */
  customerId?: string;
  status?: OrderStatus;
  /** Only orders whose id ends with these 8 lowercase hex digits: the short id the console shows. */
  idEndsWith?: string;
  /** Only orders whose id begins with these lowercase characters (hex digits and dashes): a copied start. */
  idStartsWith?: string;
  /** Only orders placed at or after this time, and before that one (ISO 8601 UTC with milliseconds). */
  placedFrom?: string;
  placedBefore?: string;
  /** Only orders in this currency whose total is within these bounds, inclusive, in its minor units. */
  totalWithin?: TotalBounds;
  limit: number;
} & (
  | { kind: 'page'; offset: number }
  /** After (or before) an order in the listing's order: newest first, by createdAt then id. */
  | { kind: 'cursor'; after?: OrderCursor; before?: OrderCursor }
);

/**
 * The ids that begin with `start`, as a range of the id index: from `start` (inclusive) to `start~`
 * (exclusive), since every id character (hex digits, dashes) sorts before '~'.
 */
export const idRangeStartingWith = (start: string): { from: string; below: string } => ({
  from: start,
  below: `${start}~`,
});

/** At least one bound is set; an order in another currency is never within them. */
export type TotalBounds = { currency: string; atLeastMinor?: number; atMostMinor?: number };

/** A place in the listing: stable under concurrent inserts, since it names an order, not an offset. */
export type OrderCursor = { createdAt: string; id: string };

/**
 * What every adapter guarantees alike (test/contracts/order-read-model.contract.ts): once applyEvents has
 * resolved, the documents are stored and every reader, in this process or another, sees them; what a reader
 * does to a view it got changes nothing stored. (A rebuild's scratch model holds its views in memory and
 * writes them at the swap: it is not a live read model, and no query reads it.)
 */
export type OrderReadModel = {
  /**
   * Applies log events to the orders they belong to, idempotently: an event whose stream revision is not
   * above the order's is ignored, so a replayed batch changes nothing. Events of other streams are ignored.
   */
  applyEvents(events: readonly RecordedEvent[]): Promise<void>;
  getOrder(id: string): Promise<OrderView | null>;
  /**
   * The order, or `unchanged` when its stored view is still the one this method last handed out for it,
   * at `knownRevision` (-1: none held): a reader that keeps that view (the query side's kept
   * representations) then parses nothing. Unchanged means the same document, not only the same revision:
   * a rebuild may repair a view without a new one. An adapter may answer with the view all the same
   * (MongoDB does: the round trip is the cost there).
   */
  getOrderIfChanged(id: string, knownRevision: number): Promise<OrderView | null | 'unchanged'>;
  /** Newest first (createdAt, then id, descending). `total` only for the page kind. */
  listOrders(query: OrderListQuery): Promise<{ orders: OrderView[]; total?: number; hasMore: boolean }>;
  /** Drops every order (for a rebuild into a scratch store). */
  clear(): Promise<void>;
};
