import type { Representation } from '../../infrastructure/http/representation.ts';

type Order = { id: string; revision: number; customerId: string };
type Kept<View extends Order> = {
  order: View;
  stamp: object;
  /** By variant: the actions its reader may take (a customer's, staff's). */
  representations: Map<string, Representation>;
};

/**
 * The orders read lately, in memory only, so that reading one again costs neither parsing its view nor
 * rendering it: per order, its view at one revision and a representation per variant (the actions its
 * reader may take: a customer's, staff's), at most `size` orders (the oldest dropped first). The view lets
 * the read model answer "unchanged" (OrderReadModel.getOrderIfChanged); a representation is used only for
 * the view it was made from (a read model that always answers with a new view, MongoDB's, keeps none
 * useful), and both only while the personal-data key they were opened with is still
 * the one cached (`keyStamp`): an erasure in this process drops them at once, one in another process within
 * the keyring's cache period (docs/personal-data.md).
 */
export const createOrderRepresentations = <View extends Order>({
  keyStamp,
  size = 5_000,
}: {
  keyStamp: (ownerId: string) => object | undefined;
  size?: number;
}) => {
  const kept = new Map<string, Kept<View>>();
  const current = (id: string): Kept<View> | undefined => {
    const entry = kept.get(id);
    return entry && entry.stamp === keyStamp(entry.order.customerId) ? entry : undefined;
  };
  return {
    /** The view of the order kept last, to ask the read model whether it changed since. */
    orderOf(id: string): View | undefined {
      return current(id)?.order;
    },
    /** One made from this very view (the read model answered unchanged), never from an equal revision only. */
    get(order: View, variant: string): Representation | undefined {
      const entry = current(order.id);
      return entry?.order === order ? entry.representations.get(variant) : undefined;
    },
    /** Keeps it with the key's `stamp` taken before it was opened: stale at once if the key changed since. */
    keep(order: View, variant: string, representation: Representation, stamp: object | undefined) {
      if (stamp === undefined) return;
      const before = kept.get(order.id);
      const entry =
        before?.order === order && before.stamp === stamp
          ? before
          : { order, stamp, representations: new Map<string, Representation>() };
      kept.delete(order.id);
      if (kept.size >= size) kept.delete(kept.keys().next().value!);
      kept.set(order.id, entry);
      entry.representations.set(variant, representation);
    },
  };
};
