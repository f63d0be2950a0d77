import type { Db } from 'mongodb';
import type { DataKeyStore } from './data-key-store.ts';

type KeyDocument = { _id: string; sealedKey: string | null; createdAt: string; erasedAt: string | null };

const isDuplicateKey = (error: unknown) => (error as { code?: number }).code === 11000;

/** Data keys in MongoDB, one document per owner; erasure unsets the key and keeps the document. */
export const createMongoDataKeyStore = (db: Db): DataKeyStore => {
  const keys = db.collection<KeyDocument>('personal_data_keys');
  const get = async (ownerId: string) => {
    const document = await keys.findOne({ _id: ownerId });
    if (!document) return null;
    return document.erasedAt !== null || document.sealedKey === null ? 'erased' : document.sealedKey;
  };
  return {
    get,
    async create(ownerId, sealedKey, at) {
      try {
        await keys.insertOne({ _id: ownerId, sealedKey, createdAt: at, erasedAt: null });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      return (await get(ownerId))!;
    },
    async erase(ownerId, at) {
      const result = await keys.updateOne(
        { _id: ownerId, erasedAt: null },
        { $set: { sealedKey: null, erasedAt: at } },
      );
      if (result.modifiedCount > 0) return true;
      try {
        await keys.insertOne({ _id: ownerId, sealedKey: null, createdAt: at, erasedAt: at });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },
    async list() {
      const documents = await keys
        .find({ sealedKey: { $ne: null } })
        .sort({ _id: 1 })
        .toArray();
      return documents.map((document) => ({ ownerId: document._id, sealedKey: document.sealedKey! }));
    },
    async reseal(ownerId, sealedKey) {
      const result = await keys.updateOne(
        { _id: ownerId, sealedKey: { $ne: null } },
        { $set: { sealedKey } },
      );
      return result.matchedCount > 0;
    },
  };
};
