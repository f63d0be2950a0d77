import { MongoServerError, type Db } from 'mongodb';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from './idempotency-store.ts';

type KeyDocument = {
  _id: string;
  fingerprint: string;
  response: StoredResponse | null;
  expiresAt: Date;
  leaseUntil: Date;
};

const duplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;
// User ids are UUIDs, so the first slash separates them from the key, whatever the key holds.
const idOf = ({ userId, key }: { userId: string; key: string }) => `${userId}/${key}`;

/**
 * Idempotency keys in MongoDB without transactions (FerretDB has none): a claim is one conditional upsert,
 * which either takes a free key (absent, expired, or abandoned past its lease) or fails on the duplicate
 * _id because a live record holds it.
 */
export const createMongoIdempotencyStore = async (db: Db): Promise<IdempotencyStore> => {
  const keys = db.collection<KeyDocument>('idempotency_keys');
  await keys.createIndex({ expiresAt: 1 }, { name: 'expiry' });

  const claimOnce = async (
    _id: string,
    fingerprint: string,
    now: Date,
    expiresAt: Date,
    leaseUntil: Date,
  ): Promise<IdempotencyClaim | undefined> => {
    try {
      await keys.updateOne(
        { _id, $or: [{ expiresAt: { $lte: now } }, { response: null, leaseUntil: { $lte: now } }] },
        { $set: { fingerprint, response: null, expiresAt, leaseUntil } },
        { upsert: true },
      );
      return { outcome: 'claimed' };
    } catch (error) {
      if (!duplicateKey(error)) throw error;
    }
    const held = await keys.findOne({ _id });
    if (!held) return undefined; // purged in between: try again
    return held.response === null
      ? { outcome: 'in-progress', fingerprint: held.fingerprint }
      : { outcome: 'completed', fingerprint: held.fingerprint, response: held.response };
  };

  return {
    async claim(scope, fingerprint, { now, expiresAt, leaseUntil }) {
      for (;;) {
        const claim = await claimOnce(idOf(scope), fingerprint, now, expiresAt, leaseUntil);
        if (claim) return claim;
      }
    },
    async complete(scope, fingerprint, response) {
      await keys.updateOne({ _id: idOf(scope), fingerprint, response: null }, { $set: { response } });
    },
    async release(scope, fingerprint) {
      await keys.deleteOne({ _id: idOf(scope), fingerprint, response: null });
    },
    async purgeExpired(now) {
      return (await keys.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
};
