import { userAccessMaxAgeMs } from './authenticator.ts';
import type { StoredAddress, UserStore } from './users.ts';

/**
 * A user store whose `findAddress` answers from memory: placing an order then reads no address from the
 * store. Each user's addresses are read as a whole, at most once per `maxAgeMs` while every id asked for is
 * among them (concurrent lookups share the read); an id not among them is looked up again at once, so an
 * address just stored through another process is found. Changes made through this store drop its user's
 * entry. An address removed through another process may therefore still be used for up to `maxAgeMs`, the
 * same window in which that process's other changes to a user reach this one.
 */
export const withAddressCache = (
  store: UserStore,
  {
    maxAgeMs = userAccessMaxAgeMs,
    now = () => performance.now(),
    maxUsers = 10_000,
  }: {
    maxAgeMs?: number;
    /** A monotonic clock in ms. */
    now?: () => number;
    /** Users remembered at most; the oldest reads go first. */
    maxUsers?: number;
  } = {},
): UserStore => {
  const known = new Map<string, { addresses: StoredAddress[]; readAt: number }>();
  const reading = new Map<string, Promise<StoredAddress[]>>();

  const read = (userId: string): Promise<StoredAddress[]> => {
    const pending = reading.get(userId);
    if (pending) return pending;
    const readAt = now();
    const promise = store
      .listAddresses(userId)
      .then((addresses) => {
        // A change made through this store while the read was under way leaves the entry out.
        if (reading.get(userId) === promise) {
          known.delete(userId);
          if (known.size >= maxUsers) known.delete(known.keys().next().value!);
          known.set(userId, { addresses, readAt });
        }
        return addresses;
      })
      .finally(() => {
        if (reading.get(userId) === promise) reading.delete(userId);
      });
    reading.set(userId, promise);
    return promise;
  };

  const forget = (userId: string) => {
    known.delete(userId);
    reading.delete(userId);
  };
  const forgetting =
    <Args extends [string, ...unknown[]], Result>(change: (...args: Args) => Promise<Result>) =>
    async (...args: Args): Promise<Result> => {
      try {
        return await change(...args);
      } finally {
        forget(args[0]);
      }
    };

  return {
    ...store,
    async findAddress(userId, addressId) {
      const entry = known.get(userId);
      const cached =
        entry && now() - entry.readAt < maxAgeMs
          ? entry.addresses.find((address) => address.id === addressId)
          : undefined;
      if (cached) return cached;
      return (await read(userId)).find((address) => address.id === addressId) ?? null;
    },
    addAddress: forgetting(store.addAddress),
    removeAddress: forgetting(store.removeAddress),
    anonymise: forgetting(store.anonymise),
  };
};
