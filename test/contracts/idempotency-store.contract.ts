import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type {
  ClaimTimes,
  IdempotencyStore,
  StoredResponse,
} from '../../command-api/idempotency/idempotency-store.ts';

const hour = 3_600_000;
const start = new Date('2026-11-21T10:00:00.000Z');
const at = (offsetMs: number) => new Date(start.getTime() + offsetMs);
const timesAt = (offsetMs: number): ClaimTimes => ({
  now: at(offsetMs),
  expiresAt: at(offsetMs + 24 * hour),
  leaseUntil: at(offsetMs + 30_000),
});
const created: StoredResponse = {
  status: 201,
  headers: { location: '/orders/1', etag: '"abc"' },
  body: '{"id":"1"}',
};

export const idempotencyStoreContract = (
  adapterName: string,
  createStore: () => Promise<IdempotencyStore>,
) => {
  describe(`IdempotencyStore contract: ${adapterName}`, () => {
    const scope = () => ({ userId: randomUUID(), key: `key-${randomUUID()}` });

    it('gives a new key to its first request; a second one sees it in progress, then its response', async () => {
      const store = await createStore();
      const key = scope();
      expect(await store.claim(key, 'fp-1', timesAt(0))).toEqual({ outcome: 'claimed' });
      expect(await store.claim(key, 'fp-1', timesAt(1000))).toEqual({
        outcome: 'in-progress',
        fingerprint: 'fp-1',
      });
      await store.complete(key, 'fp-1', created);
      expect(await store.claim(key, 'fp-2', timesAt(2000))).toEqual({
        outcome: 'completed',
        fingerprint: 'fp-1',
        response: created,
      });
    });

    it('scopes keys per user', async () => {
      const store = await createStore();
      const key = scope();
      await store.claim(key, 'fp', timesAt(0));
      expect(await store.claim({ ...key, userId: randomUUID() }, 'fp', timesAt(0))).toEqual({
        outcome: 'claimed',
      });
    });

    it('frees a key 24 h after its first request', async () => {
      const store = await createStore();
      const key = scope();
      await store.claim(key, 'fp-1', timesAt(0));
      await store.complete(key, 'fp-1', created);
      expect((await store.claim(key, 'fp-2', timesAt(24 * hour - 1))).outcome).toBe('completed');
      expect(await store.claim(key, 'fp-2', timesAt(24 * hour))).toEqual({ outcome: 'claimed' });
    });

    it('frees a released key, and an abandoned claim once its lease has passed', async () => {
      const store = await createStore();
      const released = scope();
      await store.claim(released, 'fp', timesAt(0));
      await store.release(released, 'fp');
      expect(await store.claim(released, 'fp', timesAt(1))).toEqual({ outcome: 'claimed' });

      const abandoned = scope();
      await store.claim(abandoned, 'fp', timesAt(0));
      expect((await store.claim(abandoned, 'fp', timesAt(29_999))).outcome).toBe('in-progress');
      expect(await store.claim(abandoned, 'fp', timesAt(30_000))).toEqual({ outcome: 'claimed' });
    });

    it('never releases or overwrites a completed response', async () => {
      const store = await createStore();
      const key = scope();
      await store.claim(key, 'fp', timesAt(0));
      await store.complete(key, 'fp', created);
      await store.release(key, 'fp');
      await store.complete(key, 'fp', { ...created, status: 500 });
      const claim = await store.claim(key, 'fp', timesAt(1));
      expect(claim).toEqual({ outcome: 'completed', fingerprint: 'fp', response: created });
    });

    it('of 20 concurrent claims of one key, exactly one wins', async () => {
      const store = await createStore();
      const key = scope();
      const claims = await Promise.all(Array.from({ length: 20 }, () => store.claim(key, 'fp', timesAt(0))));
      expect(claims.filter((claim) => claim.outcome === 'claimed')).toHaveLength(1);
      expect(claims.filter((claim) => claim.outcome === 'in-progress')).toHaveLength(19);
    });

    it('purges expired keys only', async () => {
      const store = await createStore();
      const [old, fresh] = [scope(), scope()];
      await store.claim(old, 'fp', timesAt(-25 * hour));
      await store.claim(fresh, 'fp', timesAt(0));
      expect(await store.purgeExpired(at(0))).toBeGreaterThanOrEqual(1);
      expect((await store.claim(fresh, 'fp', timesAt(1))).outcome).toBe('in-progress');
      expect((await store.claim(old, 'fp', timesAt(1))).outcome).toBe('claimed');
    });
  });
};
