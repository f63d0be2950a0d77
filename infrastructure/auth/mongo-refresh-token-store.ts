import { MongoServerError, type Db } from 'mongodb';
import type { RefreshTokenRecord, RefreshTokenStore, Session } from './refresh-tokens.ts';

/** Tokens stored before sessions existed lack the session fields. */
type TokenDocument = Omit<
  RefreshTokenRecord,
  'tokenHash' | 'familyRevokedAt' | 'sessionStartedAt' | 'clientAddress' | 'userAgent'
> &
  Partial<Pick<RefreshTokenRecord, 'sessionStartedAt' | 'clientAddress' | 'userAgent'>> & { _id: string };
type FamilyDocument = { _id: string; userId: string; revokedAt: string | null };
type UseDocument = { _id: string; usedAt: string; expiresAt: string };

const duplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;

/**
 * Tokens and families in two collections. A family's revocation is one document, so revoking is a single
 * atomic write and a token issued into a revoked family is revoked too. Which exchange uses a token is
 * decided by inserting its hash into `refresh_token_uses`: a unique _id, so exactly one insert wins even on
 * FerretDB, whose conditional updates are a read then a write and let racing exchanges all succeed.
 */
export const createMongoRefreshTokenStore = async (db: Db): Promise<RefreshTokenStore> => {
  const tokens = db.collection<TokenDocument>('refresh_tokens');
  const families = db.collection<FamilyDocument>('refresh_token_families');
  const uses = db.collection<UseDocument>('refresh_token_uses');
  await tokens.createIndex({ familyId: 1 }, { name: 'family' });
  await tokens.createIndex({ expiresAt: 1 }, { name: 'expiry' });
  await tokens.createIndex({ userId: 1, usedAt: 1 }, { name: 'user_unused' });
  await families.createIndex({ userId: 1 }, { name: 'user' });
  await uses.createIndex({ expiresAt: 1 }, { name: 'expiry' });

  return {
    async save({ tokenHash, ...token }) {
      await families.updateOne(
        { _id: token.familyId },
        { $setOnInsert: { userId: token.userId, revokedAt: null } },
        { upsert: true },
      );
      await tokens.insertOne({ _id: tokenHash, ...token, usedAt: null });
    },
    async find(tokenHash) {
      const token = await tokens.findOne({ _id: tokenHash });
      if (!token) return null;
      const family = await families.findOne({ _id: token.familyId });
      const { _id, ...rest } = token;
      return {
        tokenHash: _id,
        ...rest,
        sessionStartedAt: token.sessionStartedAt ?? token.issuedAt,
        clientAddress: token.clientAddress ?? null,
        userAgent: token.userAgent ?? null,
        familyRevokedAt: family?.revokedAt ?? null,
      };
    },
    async markUsed(tokenHash, usedAt) {
      const token = await tokens.findOne({ _id: tokenHash, usedAt: null }, { projection: { expiresAt: 1 } });
      if (!token) return false;
      try {
        await uses.insertOne({ _id: tokenHash, usedAt, expiresAt: token.expiresAt });
      } catch (error) {
        if (duplicateKey(error)) return false;
        throw error;
      }
      await tokens.updateOne({ _id: tokenHash }, { $set: { usedAt } });
      return true;
    },
    async revokeFamily(familyId, revokedAt) {
      await families.updateOne({ _id: familyId, revokedAt: null }, { $set: { revokedAt } });
    },
    async revokeAllOfUser(userId, revokedAt) {
      const live = await families.find({ userId, revokedAt: null }, { projection: { _id: 1 } }).toArray();
      const ids = live.map((family) => family._id);
      if (ids.length > 0)
        await families.updateMany({ _id: { $in: ids }, revokedAt: null }, { $set: { revokedAt } });
      return ids.sort();
    },
    async listSessions(userId, now) {
      const unused = await tokens.find({ userId, usedAt: null, expiresAt: { $gt: now } }).toArray();
      if (unused.length === 0) return [];
      const revoked = new Set(
        (
          await families
            .find({ _id: { $in: unused.map((token) => token.familyId) }, revokedAt: { $ne: null } })
            .project<{ _id: string }>({ _id: 1 })
            .toArray()
        ).map((family) => family._id),
      );
      return unused
        .filter((token) => !revoked.has(token.familyId))
        .map((token): Session => ({
          id: token.familyId,
          startedAt: token.sessionStartedAt ?? token.issuedAt,
          lastUsedAt: token.issuedAt,
          expiresAt: token.expiresAt,
          clientAddress: token.clientAddress ?? null,
          userAgent: token.userAgent ?? null,
        }))
        .sort((a, b) =>
          a.lastUsedAt === b.lastUsedAt ? (a.id < b.id ? -1 : 1) : a.lastUsedAt < b.lastUsedAt ? 1 : -1,
        );
    },
    async deleteExpired(before) {
      const result = await tokens.deleteMany({ expiresAt: { $lt: before } });
      await uses.deleteMany({ expiresAt: { $lt: before } });
      return result.deletedCount;
    },
  };
};
