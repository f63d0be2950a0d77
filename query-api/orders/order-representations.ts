import type { Representation } from '../../infrastructure/http/representation.ts';

type Kept = { revision: number; stamp: object; representation: Representation };
type Order = { id: string; revision: number; customerId: string };

/**
 * The representations of the orders read lately, in memory only, so that reading an order again costs no
 * rendering: one per order and variant (the actions its reader may take: a customer's, staff's), at most
 * `size` (the oldest dropped first). One is used only for the revision
 * it was made from, and only while the personal-data key it was opened with is still the one cached
 * (`keyStamp`): an erasure in this process drops it at once, one in another process within the keyring's
 * cache period (docs/personal-data.md).
 */
export const createOrderRepresentations = ({
  keyStamp,
  size = 10_000,
}: {
  keyStamp: (ownerId: string) => object | undefined;
  size?: number;
}) => {
  const kept = new Map<string, Kept>();
  return {
    get(order: Order, variant: string): Representation | undefined {
      const entry = kept.get(`${order.id} ${variant}`);
      if (entry?.revision === order.revision && entry.stamp === keyStamp(order.customerId)) {
        return entry.representation;
      }
      return undefined;
    },
    keep(order: Order, variant: string, representation: Representation) {
      const stamp = keyStamp(order.customerId);
      if (stamp === undefined) return;
      const key = `${order.id} ${variant}`;
      kept.delete(key);
      if (kept.size >= size) kept.delete(kept.keys().next().value!);
      kept.set(key, { revision: order.revision, stamp, representation });
    },
  };
};
