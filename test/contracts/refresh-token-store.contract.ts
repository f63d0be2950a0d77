import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RefreshTokenRecord, RefreshTokenStore } from '../../infrastructure/auth/refresh-tokens.ts';

const aToken = (overrides: Partial<RefreshTokenRecord> = {}) => ({
  tokenHash: randomUUID(),
  familyId: randomUUID(),
  userId: randomUUID(),
  issuedAt: '2026-11-21T10:00:00.000Z',
  expiresAt: '2026-12-21T10:00:00.000Z',
  sessionStartedAt: '2026-11-21T10:00:00.000Z',
  clientAddress: '203.0.113.7',
  userAgent: 'curl/8.0',
  ...overrides,
});

/** What every adapter of the RefreshTokenStore port promises. */
export const refreshTokenStoreContract = (
  adapterName: string,
  createStore: () => Promise<RefreshTokenStore>,
) => {
  describe(`RefreshTokenStore contract: ${adapterName}`, () => {
    let store: RefreshTokenStore;
    beforeAll(async () => {
      store = await createStore();
    });

    it('saves a token and finds it by its hash, unused and unrevoked', async () => {
      const token = aToken();
      await store.save(token);
      expect(await store.find(token.tokenHash)).toEqual({ ...token, usedAt: null, familyRevokedAt: null });
      expect(await store.find(randomUUID())).toBeNull();
    });

    it('marks a token used exactly once, even when two exchanges race', async () => {
      const token = aToken();
      await store.save(token);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => store.markUsed(token.tokenHash, '2026-11-21T10:05:00.000Z')),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.find(token.tokenHash)).toMatchObject({ usedAt: '2026-11-21T10:05:00.000Z' });
    });

    it('revokes every token of a family, including one saved into it afterwards, and no other family', async () => {
      const family = randomUUID();
      const [first, second, other] = [aToken({ familyId: family }), aToken({ familyId: family }), aToken()];
      for (const token of [first, second, other]) await store.save(token);
      await store.revokeFamily(family, '2026-11-21T11:00:00.000Z');
      const late = aToken({ familyId: family });
      await store.save(late);

      for (const token of [first, second, late]) {
        expect(await store.find(token.tokenHash)).toMatchObject({
          familyRevokedAt: '2026-11-21T11:00:00.000Z',
        });
      }
      expect(await store.find(other.tokenHash)).toMatchObject({ familyRevokedAt: null });
    });

    it("revokes all of a user's families", async () => {
      const userId = randomUUID();
      const [a, b, stranger] = [aToken({ userId }), aToken({ userId }), aToken()];
      for (const token of [a, b, stranger]) await store.save(token);
      expect(await store.revokeAllOfUser(userId, '2026-11-21T12:00:00.000Z')).toEqual(
        [a.familyId, b.familyId].sort(),
      );
      // Revoked already: nothing more to revoke.
      expect(await store.revokeAllOfUser(userId, '2026-11-21T12:30:00.000Z')).toEqual([]);
      expect(await store.find(a.tokenHash)).toMatchObject({ familyRevokedAt: '2026-11-21T12:00:00.000Z' });
      expect(await store.find(b.tokenHash)).toMatchObject({ familyRevokedAt: '2026-11-21T12:00:00.000Z' });
      expect(await store.find(stranger.tokenHash)).toMatchObject({ familyRevokedAt: null });
    });

    it("lists a user's sessions: families with a live token, newest first, with where and when", async () => {
      const userId = randomUUID();
      const now = '2026-11-22T00:00:00.000Z';
      const older = aToken({
        userId,
        issuedAt: '2026-11-21T09:00:00.000Z',
        sessionStartedAt: '2026-11-21T09:00:00.000Z',
      });
      // A session refreshed once: its first token used, its second live, from another client.
      const refreshedFamily = randomUUID();
      const first = aToken({ userId, familyId: refreshedFamily });
      const second = aToken({
        userId,
        familyId: refreshedFamily,
        issuedAt: '2026-11-21T11:00:00.000Z',
        clientAddress: '198.51.100.9',
        userAgent: null,
      });
      const expired = aToken({ userId, expiresAt: '2026-11-21T23:00:00.000Z' });
      const revoked = aToken({ userId });
      const strangers = aToken();
      for (const token of [older, first, second, expired, revoked, strangers]) await store.save(token);
      await store.markUsed(first.tokenHash, '2026-11-21T11:00:00.000Z');
      await store.revokeFamily(revoked.familyId, '2026-11-21T12:00:00.000Z');

      expect(await store.listSessions(userId, now)).toEqual([
        {
          id: refreshedFamily,
          startedAt: '2026-11-21T10:00:00.000Z',
          lastUsedAt: '2026-11-21T11:00:00.000Z',
          expiresAt: second.expiresAt,
          clientAddress: '198.51.100.9',
          userAgent: null,
        },
        {
          id: older.familyId,
          startedAt: '2026-11-21T09:00:00.000Z',
          lastUsedAt: '2026-11-21T09:00:00.000Z',
          expiresAt: older.expiresAt,
          clientAddress: '203.0.113.7',
          userAgent: 'curl/8.0',
        },
      ]);
      expect(await store.listSessions(randomUUID(), now)).toEqual([]);
    });

    it('deletes tokens that expired before a time', async () => {
      const expired = aToken({ expiresAt: '2000-01-01T00:00:00.000Z' });
      const live = aToken({ expiresAt: '2999-01-01T00:00:00.000Z' });
      await store.save(expired);
      await store.save(live);
      expect(await store.deleteExpired('2026-11-21T00:00:00.000Z')).toBeGreaterThanOrEqual(1);
      expect(await store.find(expired.tokenHash)).toBeNull();
      expect(await store.find(live.tokenHash)).not.toBeNull();
    });
  });
};
