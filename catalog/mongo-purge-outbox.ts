import { MongoServerError, type Db } from 'mongodb';
import { createOrderedIds } from '../infrastructure/ordered-ids.ts';
import type { PendingPurge, PurgeOutbox } from './catalog.ts';

type PurgeDocument = {
  _id: string;
  keys: string[];
  /** `preparing` while its import writes: not sent before the change is there to be fetched. */
  state: 'preparing' | 'pending' | 'sent' | 'abandoned';
  dueAt: number;
  attempts: number;
  sentTo: string[];
  /** Leases granted so far: the number of the next claim. */
  claims: number;
  lease: { owner: string; until: number } | null;
  settledAt: number | null;
};
/** One per lease granted, `${purgeId}/${claim number}`: its unique _id is what makes a claim exclusive. */
type ClaimDocument = { _id: string; owner: string; until: number };

const isDuplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;
const claimable = (purge: PurgeDocument, now: number) =>
  purge.state === 'pending' && purge.dueAt <= now && (purge.lease === null || purge.lease.until <= now);
const toPurge = ({ _id, keys, attempts, sentTo }: PurgeDocument): PendingPurge => ({
  id: _id,
  keys,
  attempts,
  sentTo,
});

/**
 * The purge outbox in MongoDB. Without transactions (FerretDB has none), an import first records its purge
 * as preparing, then writes the catalogue, then makes it pending: an import that dies midway leaves its
 * purge preparing, and the next import to complete makes it pending with its own (purging more than
 * changed is harmless; a change never purged is not). Concurrent imports are not supported on MongoDB.
 *
 * A claim inserts a claim document with a unique _id, as the webhook retry state does: FerretDB reads and
 * then rewrites a document without a lock in between, so concurrent conditional updates would all succeed.
 */
export const createMongoPurgeOutbox = async (db: Db) => {
  const purges = db.collection<PurgeDocument>('catalog_purges');
  const claims = db.collection<ClaimDocument>('catalog_purge_claims');
  // The due purges (by state) and the prune (by state, then when settled); the claims pruned by expiry.
  await purges.createIndex({ state: 1, settledAt: 1 }, { name: 'state' });
  await claims.createIndex({ until: 1 }, { name: 'until' });
  const newId = createOrderedIds();

  const claimOnce = async (
    id: string,
    { owner, now, leaseUntil }: { owner: string; now: number; leaseUntil: number },
  ): Promise<boolean | undefined> => {
    const purge = await purges.findOne({ _id: id });
    if (!purge || !claimable(purge, now)) return false;
    const number = purge.claims;
    try {
      await claims.insertOne({ _id: `${id}/${number}`, owner, until: leaseUntil });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const taken = await claims.findOne({ _id: `${id}/${number}` });
      // Its taker is recording it now, or died before it could: once that lease ran out, the number is skipped.
      if (taken === null || taken.until > now) return false;
      await purges.updateOne({ _id: id, claims: number }, { $set: { claims: number + 1 } });
      return undefined;
    }
    await purges.updateOne(
      { _id: id },
      { $set: { lease: { owner, until: leaseUntil }, claims: number + 1 } },
    );
    return true;
  };

  const outbox: PurgeOutbox = {
    async due({ now, limit }) {
      // The plainest filter, sorted here: FerretDB scans the collection for any filter but _id anyway.
      const pending = await purges.find({ state: 'pending' }).toArray();
      return pending
        .filter((purge) => claimable(purge, now))
        .sort((a, b) => (a._id < b._id ? -1 : 1))
        .slice(0, limit)
        .map(toPurge);
    },
    async claim(id, options) {
      for (;;) {
        const claimed = await claimOnce(id, options);
        if (claimed !== undefined) return claimed;
      }
    },
    async settle(id, owner, settlement) {
      const held = { _id: id, 'lease.owner': owner };
      const update =
        settlement.status === 'sent'
          ? { $set: { state: 'sent' as const, lease: null, settledAt: settlement.at } }
          : settlement.status === 'retry'
            ? {
                $set: {
                  state: 'pending' as const,
                  lease: null,
                  dueAt: settlement.dueAt,
                  sentTo: settlement.sentTo,
                },
                $inc: { attempts: 1 },
              }
            : {
                $set: {
                  state: 'abandoned' as const,
                  lease: null,
                  settledAt: settlement.at,
                  sentTo: settlement.sentTo,
                },
                $inc: { attempts: 1 },
              };
      return (await purges.updateOne(held, update)).matchedCount === 1;
    },
    async prune(before) {
      const { deletedCount } = await purges.deleteMany({
        state: { $in: ['sent', 'abandoned'] },
        settledAt: { $lt: before },
      });
      await claims.deleteMany({ until: { $lt: before } });
      return deletedCount;
    },
  };

  return {
    outbox,
    /** Records a purge of these keys (if any) before the import writes; the id to `release` after. */
    async prepare(keys: string[]): Promise<string> {
      const id = newId();
      if (keys.length === 0) return id;
      await purges.insertOne({
        _id: id,
        keys,
        state: 'preparing',
        dueAt: 0,
        attempts: 0,
        sentTo: [],
        claims: 0,
        lease: null,
        settledAt: null,
      });
      return id;
    },
    /** Once the import wrote: its purge, and any left preparing by an import that died, may go out. */
    async release(id: string) {
      await purges.updateMany({ state: 'preparing', _id: { $lte: id } }, { $set: { state: 'pending' } });
    },
  };
};
