import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { withAddressCache } from '../../identity/address-cache.ts';
import { createSqliteUserStore } from '../../identity/sqlite-user-store.ts';
import type { StoredAddress, UserStore } from '../../identity/users.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';

// Two caches over one node:sqlite file stand for two processes sharing one store.
const dir = mkdtempSync(join(tmpdir(), 'address-cache-'));
const db = openDatabase({ path: join(dir, 'read-store.sqlite') });
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const store = createSqliteUserStore(db);
const anAddress = (): StoredAddress => ({
  id: randomUUID(),
  street: '1 Rue de la République',
  city: 'Lyon',
  postalCode: '69001',
  country: 'FR',
  createdAt: '2026-11-26T10:00:00.000Z',
});

describe('the address cache of the processes that place orders', () => {
  let clock = 0;
  let reads = 0;
  const counted: UserStore = {
    ...store,
    listAddresses: (userId) => {
      reads++;
      return store.listAddresses(userId);
    },
  };
  const options = { maxAgeMs: 1000, now: () => clock };
  let userId: string;
  let thisProcess: UserStore;
  let otherProcess: UserStore;

  beforeEach(async () => {
    clock = 0;
    reads = 0;
    userId = randomUUID();
    await store.addUser({
      id: userId,
      email: `${userId}@shop.example`,
      name: 'Ann Example',
      passwordHash: 'scrypt$N=1024,r=8,p=1$c2FsdA==$a2V5',
      roles: ['customer'],
      disabled: false,
      createdAt: '2026-11-26T10:00:00.000Z',
    });
    thisProcess = withAddressCache(counted, options);
    otherProcess = withAddressCache(store, options);
  });

  it('reads a user’s addresses once while they are fresh', async () => {
    const home = (await thisProcess.addAddress(userId, anAddress()))!;
    const work = (await thisProcess.addAddress(userId, anAddress()))!;
    for (let lookup = 0; lookup < 5; lookup++) {
      expect(await thisProcess.findAddress(userId, home.id)).toEqual(home);
      expect(await thisProcess.findAddress(userId, work.id)).toEqual(work);
      clock += 100;
    }
    expect(reads).toBe(1);
    clock += 1000;
    expect(await thisProcess.findAddress(userId, home.id)).toEqual(home);
    expect(reads).toBe(2);
  });

  it('shares one read between concurrent lookups', async () => {
    const home = (await store.addAddress(userId, anAddress()))!;
    const found = await Promise.all([1, 2, 3].map(() => thisProcess.findAddress(userId, home.id)));
    expect(found).toEqual([home, home, home]);
    expect(reads).toBe(1);
  });

  it('finds at once an address another process has just stored', async () => {
    const home = (await thisProcess.addAddress(userId, anAddress()))!;
    expect(await thisProcess.findAddress(userId, home.id)).toEqual(home);
    const work = (await otherProcess.addAddress(userId, anAddress()))!;
    expect(await thisProcess.findAddress(userId, work.id)).toEqual(work);
  });

  it('finds an address stored elsewhere while a read begun before it was still under way', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = withAddressCache(
      {
        ...store,
        listAddresses: async (id) => {
          const addresses = await store.listAddresses(id); // read now, answered later
          await held;
          return addresses;
        },
      },
      options,
    );
    const home = (await store.addAddress(userId, anAddress()))!;
    const first = slow.findAddress(userId, home.id);
    const work = (await otherProcess.addAddress(userId, anAddress()))!;
    const second = slow.findAddress(userId, work.id);
    release();
    expect(await first).toEqual(home);
    expect(await second).toEqual(work);
  });

  it('forgets at once an address removed through it', async () => {
    const home = (await thisProcess.addAddress(userId, anAddress()))!;
    expect(await thisProcess.findAddress(userId, home.id)).toEqual(home);
    expect(await thisProcess.removeAddress(userId, home.id)).toBe(true);
    expect(await thisProcess.findAddress(userId, home.id)).toBeNull();
  });

  it('uses an address another process removed for at most maxAgeMs', async () => {
    const home = (await thisProcess.addAddress(userId, anAddress()))!;
    expect(await thisProcess.findAddress(userId, home.id)).toEqual(home);
    expect(await otherProcess.removeAddress(userId, home.id)).toBe(true);
    clock += 999;
    expect(await thisProcess.findAddress(userId, home.id)).toEqual(home);
    clock += 1;
    expect(await thisProcess.findAddress(userId, home.id)).toBeNull();
  });

  it('forgets every address of a user erased through it', async () => {
    const home = (await thisProcess.addAddress(userId, anAddress()))!;
    expect(await thisProcess.findAddress(userId, home.id)).toEqual(home);
    await thisProcess.anonymise(userId, { email: `erased-${userId}@invalid`, name: '', passwordHash: '' });
    expect(await thisProcess.findAddress(userId, home.id)).toBeNull();
  });

  it('never answers with another user’s address', async () => {
    const home = (await thisProcess.addAddress(userId, anAddress()))!;
    expect(await thisProcess.findAddress(userId, home.id)).toEqual(home);
    expect(await thisProcess.findAddress(randomUUID(), home.id)).toBeNull();
  });
});
