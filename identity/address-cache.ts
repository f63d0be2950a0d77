import { createSharedReads } from '../infrastructure/caching/shared-reads.ts';
import { accountAccessMaxAgeMs } from '../infrastructure/auth/accounts.ts';
import type { UserStore } from './users.ts';

/**
 * A user store whose `findAddress` answers from memory: placing an order then reads no address from the
 * store. Each user's addresses are read as a whole, at most once per `maxAgeMs` while every id asked for is
 * among them (concurrent lookups share the read); an id not among them is looked up again at once, in a
 * read begun after the lookup, so an address just stored through another process is found. Changes made
 * through this store drop its user's entry. An address removed through another process may therefore
 * still be used for up to `maxAgeMs`, the same window in which that process's other changes to a user
 * reach this one.
 */
export const withAddressCache = (
  store: UserStore,
  {
    maxAgeMs = accountAccessMaxAgeMs,
    now = () => performance.now(),
    maxUsers = 1_000,
  }: {
    maxAgeMs?: number;
    /** A monotonic clock in ms. */
    now?: () => number;
    /** Users whose addresses are kept at most (50 at most each); the oldest reads go first. */
    maxUsers?: number;
  } = {},
): UserStore => {
  const addresses = createSharedReads({
    read: (userId) => store.listAddresses(userId),
    maxAgeMs,
    now,
    maxEntries: maxUsers,
  });
  const forgetting =
    <Args extends [string, ...unknown[]], Result>(change: (...args: Args) => Promise<Result>) =>
    async (...args: Args): Promise<Result> => {
      try {
        return await change(...args);
      } finally {
        addresses.forget(args[0]);
      }
    };

  return {
    ...store,
    async findAddress(userId, addressId) {
      const withId = (list: Awaited<ReturnType<UserStore['listAddresses']>>) =>
        list.find((address) => address.id === addressId) ?? null;
      return withId(await addresses.get(userId)) ?? withId(await addresses.fresh(userId));
    },
    addAddress: forgetting(store.addAddress),
    removeAddress: forgetting(store.removeAddress),
    anonymise: forgetting(store.anonymise),
  };
};
