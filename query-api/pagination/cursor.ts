import { z } from 'zod';
import type { OrderCursor } from '../../projections/orders/order-read-model.ts';

/** Which way a cursor walks from the order it names: towards older orders (next) or newer ones (prev). */
export type CursorDirection = 'after' | 'before';

const cursorShape = z.tuple([z.enum(['after', 'before']), z.iso.datetime(), z.uuid()]);

/** Opaque to clients: base64url of the direction and the order it is relative to. */
export const encodeCursor = (direction: CursorDirection, at: OrderCursor): string =>
  Buffer.from(JSON.stringify([direction, at.createdAt, at.id])).toString('base64url');

/** The cursor's meaning, or undefined when it is not one this service made. */
export const decodeCursor = (cursor: string): { direction: CursorDirection; at: OrderCursor } | undefined => {
  try {
    const parsed = cursorShape.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (!parsed.success) return undefined;
    const [direction, createdAt, id] = parsed.data;
    return { direction, at: { createdAt, id } };
  } catch {
    return undefined;
  }
};

/**
 * The links of a cursor page. Walking towards older items, "more" lies next; walking back towards newer
 * ones, it lies before; the first page has no prev.
 */
export const cursorLinks = <T>({
  direction,
  hasMore,
  items,
  link,
}: {
  /** How the page was asked for; undefined for the first page. */
  direction: CursorDirection | undefined;
  hasMore: boolean;
  items: readonly T[];
  link: (direction: CursorDirection, item: T | undefined) => string | null;
}): { next: string | null; prev: string | null } => {
  const backwards = direction === 'before';
  const next = backwards || hasMore ? link('after', items.at(-1)) : null;
  const prev = backwards
    ? hasMore
      ? link('before', items[0])
      : null
    : direction === undefined
      ? null
      : link('before', items[0]);
  return { next, prev };
};
