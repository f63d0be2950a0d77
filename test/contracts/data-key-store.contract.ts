import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DataKeyStore } from '../../infrastructure/personal-data/data-key-store.ts';

const at = '2026-01-02T03:04:05.000Z';

export const dataKeyStoreContract = (adapterName: string, createStore: () => Promise<DataKeyStore>) => {
  describe(`DataKeyStore contract: ${adapterName}`, () => {
    it('has no key for a new owner; the first key created stays, whoever creates next', async () => {
      const store = await createStore();
      const owner = randomUUID();
      expect(await store.get(owner)).toBeNull();
      expect(await store.create(owner, 'sealed-1', at)).toBe('sealed-1');
      expect(await store.create(owner, 'sealed-2', at)).toBe('sealed-1');
      expect(await store.get(owner)).toBe('sealed-1');
    });

    it('two racing creators both get the one stored key', async () => {
      const store = await createStore();
      const owner = randomUUID();
      const [first, second] = await Promise.all([
        store.create(owner, 'sealed-a', at),
        store.create(owner, 'sealed-b', at),
      ]);
      expect(first).toBe(second);
      expect(await store.get(owner)).toBe(first);
    });

    it('erasure deletes the key for good: once true, then false; no key is created again', async () => {
      const store = await createStore();
      const owner = randomUUID();
      const other = randomUUID();
      await store.create(owner, 'sealed-1', at);
      await store.create(other, 'sealed-other', at);
      expect(await store.erase(owner, at)).toBe(true);
      expect(await store.get(owner)).toBe('erased');
      expect(await store.erase(owner, at)).toBe(false);
      expect(await store.create(owner, 'sealed-2', at)).toBe('erased');
      expect(await store.get(owner)).toBe('erased');
      expect(await store.get(other)).toBe('sealed-other');
      expect((await store.list()).map((entry) => entry.ownerId)).not.toContain(owner);
    });

    it('erases an owner that never had a key, so that none is ever created', async () => {
      const store = await createStore();
      const owner = randomUUID();
      expect(await store.erase(owner, at)).toBe(true);
      expect(await store.create(owner, 'sealed-1', at)).toBe('erased');
      expect(await store.erase(owner, at)).toBe(false);
    });

    it('lists the keys that exist, and re-seals only those', async () => {
      const store = await createStore();
      const owner = randomUUID();
      const erased = randomUUID();
      await store.create(owner, 'sealed-old', at);
      await store.erase(erased, at);
      expect(await store.list()).toContainEqual({ ownerId: owner, sealedKey: 'sealed-old' });
      expect(await store.reseal(owner, 'sealed-new')).toBe(true);
      expect(await store.get(owner)).toBe('sealed-new');
      expect(await store.reseal(erased, 'sealed-new')).toBe(false);
      expect(await store.get(erased)).toBe('erased');
    });
  });
};
