import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AddressLimitError,
  EmailTakenError,
  maxAddressesPerUser,
  type StoredAddress,
  type User,
  type UserStore,
} from '../../identity/users.ts';

const aUser = (overrides: Partial<User> = {}): User => ({
  id: randomUUID(),
  email: `${randomUUID()}@shop.example`,
  name: 'Ann Example',
  passwordHash: 'scrypt$N=1024,r=8,p=1$c2FsdA==$a2V5',
  roles: ['customer'],
  disabled: false,
  createdAt: '2026-11-21T10:00:00.000Z',
  ...overrides,
});

const anAddress = (overrides: Partial<StoredAddress> = {}): StoredAddress => ({
  id: randomUUID(),
  street: '1 Rue de la République',
  city: 'Lyon',
  postalCode: '69001',
  country: 'FR',
  createdAt: '2026-11-21T10:00:00.000Z',
  ...overrides,
});

/** What every adapter of the UserStore port promises. Fresh ids and e-mails per test: shared servers are fine. */
export const userStoreContract = (adapterName: string, createStore: () => Promise<UserStore>) => {
  describe(`UserStore contract: ${adapterName}`, () => {
    let store: UserStore;
    beforeAll(async () => {
      store = await createStore();
    });

    it('adds a user and finds it by id and by e-mail, case-insensitively', async () => {
      const user = aUser({ email: `Mixed.${randomUUID()}@Shop.Example`, roles: ['staff', 'auditor'] });
      await store.addUser(user);
      const stored = { ...user, email: user.email.toLowerCase() };
      expect(await store.findById(user.id)).toEqual(stored);
      expect(await store.findByEmail(user.email.toUpperCase())).toEqual(stored);
      expect(await store.findById(randomUUID())).toBeNull();
      expect(await store.findByEmail('nobody@shop.example')).toBeNull();
    });

    it('refuses a second user with the same e-mail', async () => {
      const user = aUser();
      await store.addUser(user);
      await expect(store.addUser(aUser({ email: user.email.toUpperCase() }))).rejects.toBeInstanceOf(
        EmailTakenError,
      );
    });

    it('lists and counts users', async () => {
      const before = await store.countUsers();
      const user = aUser();
      await store.addUser(user);
      expect(await store.countUsers()).toBe(before + 1);
      expect((await store.listUsers()).map((u) => u.id)).toContain(user.id);
    });

    it('changes roles and the disabled flag, returning the updated user', async () => {
      const user = aUser();
      await store.addUser(user);
      expect(await store.setRoles(user.id, ['admin'])).toMatchObject({ id: user.id, roles: ['admin'] });
      expect(await store.setDisabled(user.id, true)).toMatchObject({ id: user.id, disabled: true });
      expect(await store.findById(user.id)).toMatchObject({ roles: ['admin'], disabled: true });
      expect(await store.setRoles(randomUUID(), ['admin'])).toBeNull();
      expect(await store.setDisabled(randomUUID(), true)).toBeNull();
    });

    it('replaces a password hash, returning the updated user', async () => {
      const user = aUser();
      await store.addUser(user);
      const passwordHash = 'scrypt$N=1024,r=8,p=1$b3RoZXI=$a2V5Mg==';
      expect(await store.setPasswordHash(user.id, passwordHash)).toMatchObject({ id: user.id, passwordHash });
      expect(await store.findByEmail(user.email)).toMatchObject({ passwordHash, roles: user.roles });
      expect(await store.setPasswordHash(randomUUID(), passwordHash)).toBeNull();
    });

    it("keeps each user's addresses apart and reaches them only through their owner", async () => {
      const [ann, bob] = [aUser(), aUser()];
      await store.addUser(ann);
      await store.addUser(bob);
      const home = anAddress();
      const office = anAddress({ street: '2 Quai Perrache', createdAt: '2026-11-21T11:00:00.000Z' });
      expect(await store.addAddress(ann.id, home)).toEqual(home);
      await store.addAddress(ann.id, office);

      expect(await store.listAddresses(ann.id)).toEqual([home, office]);
      expect(await store.listAddresses(bob.id)).toEqual([]);
      expect(await store.findAddress(ann.id, home.id)).toEqual(home);
      expect(await store.findAddress(bob.id, home.id)).toBeNull();

      expect(await store.removeAddress(bob.id, home.id)).toBe(false);
      expect(await store.removeAddress(ann.id, home.id)).toBe(true);
      expect(await store.removeAddress(ann.id, home.id)).toBe(false);
      expect(await store.listAddresses(ann.id)).toEqual([office]);
    });

    it('adds no address to a user that does not exist', async () => {
      expect(await store.addAddress(randomUUID(), anAddress())).toBeNull();
    });

    it(`keeps at most ${maxAddressesPerUser} addresses per user`, async () => {
      const user = aUser();
      await store.addUser(user);
      for (let n = 0; n < maxAddressesPerUser; n++) await store.addAddress(user.id, anAddress());
      await expect(store.addAddress(user.id, anAddress())).rejects.toBeInstanceOf(AddressLimitError);
      expect(await store.listAddresses(user.id)).toHaveLength(maxAddressesPerUser);
    });
  });
};
