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
  });
};
