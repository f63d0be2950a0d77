import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../infrastructure/event-sourcing/checkpoints.ts';

export const checkpointStoreContract = (adapterName: string, createStore: () => Promise<CheckpointStore>) => {
  describe(`CheckpointStore contract: ${adapterName}`, () => {
    it('has nothing for a new projection, then the last position saved, beyond 2^53 too', async () => {
      const store = await createStore();
      const name = `projection-${randomUUID()}`;
      expect(await store.load(name)).toBeUndefined();
      await store.save(name, 42n);
      await store.save(name, 2n ** 64n + 7n);
      expect(await store.load(name)).toBe(2n ** 64n + 7n);
    });

    it("saves several projections' positions at once, leaving the others as they were", async () => {
      const store = await createStore();
      const [a, b, other] = [1, 2, 3].map(() => `projection-${randomUUID()}`) as [string, string, string];
      await store.save(other, 5n);
      await store.saveAll(
        new Map([
          [a, 10n],
          [b, 2n ** 60n],
        ]),
      );
      await store.saveAll(new Map([[a, 11n]]));
      expect([await store.load(a), await store.load(b), await store.load(other)]).toEqual([
        11n,
        2n ** 60n,
        5n,
      ]);
    });
  });
};
