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

    it('finds the users of several ids at once, leaving out the ids of nobody', async () => {
      const [first, second] = [aUser(), aUser()];
      await store.addUser(first);
      await store.addUser(second);
      const found = await store.findByIds([second.id, randomUUID(), first.id, second.id]);
      expect(found.map((user) => user.id).sort()).toEqual([first.id, second.id].sort());
      expect(found.find((user) => user.id === first.id)).toEqual({
        ...first,
        email: first.email.toLowerCase(),
      });
      expect(await store.findByIds([])).toEqual([]);
      expect(await store.findByIds([randomUUID()])).toEqual([]);
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

    it('anonymises a user: e-mail, name and password replaced, disabled, its addresses gone', async () => {
      const user = aUser();
      const other = aUser();
      await store.addUser(user);
      await store.addUser(other);
      await store.addAddress(user.id, anAddress());
      await store.addAddress(other.id, anAddress());
      const anonymous = { email: `erased-${user.id}@erased.invalid`, name: '[erased]', passwordHash: '!' };
      expect(await store.anonymise(user.id, anonymous)).toEqual({ ...user, ...anonymous, disabled: true });
      expect(await store.findByEmail(user.email)).toBeNull();
      expect(await store.findById(user.id)).toMatchObject({
        ...anonymous,
        disabled: true,
        roles: user.roles,
      });
      expect(await store.listAddresses(user.id)).toEqual([]);
      expect(await store.listAddresses(other.id)).toHaveLength(1);
      expect(await store.anonymise(user.id, anonymous)).toMatchObject(anonymous);
      expect(await store.anonymise(randomUUID(), anonymous)).toBeNull();
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
    describe('access: roles, disabled and revocations, in one read', () => {
      const at = '2026-11-25T10:00:00.000Z';
      const inAnHour = '2026-11-25T11:00:00.000Z';

      it('reads what a new user may do: its roles, enabled, nothing revoked; null for no user', async () => {
        const user = aUser({ roles: ['customer', 'auditor'] });
        await store.addUser(user);
        expect(await store.accessOf(user.id, at)).toEqual({
          roles: ['customer', 'auditor'],
          disabled: false,
          revoked: { sessions: [], tokens: [], before: null },
        });
        expect(await store.accessOf(randomUUID(), at)).toBeNull();
      });

      it('follows role changes and disabling', async () => {
        const user = aUser();
        await store.addUser(user);
        await store.setRoles(user.id, ['staff']);
        await store.setDisabled(user.id, true);
        expect(await store.accessOf(user.id, at)).toMatchObject({ roles: ['staff'], disabled: true });
      });

      it('keeps revoked sessions and tokens until their until, and drops them after', async () => {
        const user = aUser();
        await store.addUser(user);
        await store.revokeAccess(user.id, { sessions: ['s-2', 's-1'], at, until: inAnHour });
        await store.revokeAccess(user.id, { tokens: ['t-1'], at, until: '2026-11-25T10:30:00.000Z' });
        // Revoking again what is revoked already changes nothing.
        await store.revokeAccess(user.id, { sessions: ['s-1'], at, until: inAnHour });
        expect((await store.accessOf(user.id, at))!.revoked).toEqual({
          sessions: ['s-1', 's-2'],
          tokens: ['t-1'],
          before: null,
        });
        expect((await store.accessOf(user.id, '2026-11-25T10:30:00.000Z'))!.revoked).toEqual({
          sessions: ['s-1', 's-2'],
          tokens: [],
          before: null,
        });
        expect((await store.accessOf(user.id, inAnHour))!.revoked).toEqual({
          sessions: [],
          tokens: [],
          before: null,
        });
        // A later revocation drops what has expired; what is in force stays.
        await store.revokeAccess(user.id, {
          tokens: ['t-2'],
          at: '2026-11-25T10:45:00.000Z',
          until: inAnHour,
        });
        expect((await store.accessOf(user.id, '2026-11-25T10:45:00.000Z'))!.revoked).toEqual({
          sessions: ['s-1', 's-2'],
          tokens: ['t-2'],
          before: null,
        });
      });

      it('keeps the latest moment before which every access token is refused', async () => {
        const user = aUser();
        await store.addUser(user);
        const before = (moment: string) =>
          store.revokeAccessBefore(user.id, { at: moment, until: '2026-11-25T12:00:00.000Z' });
        await before('2026-11-25T10:00:00.500Z');
        await before('2026-11-25T09:00:00.000Z');
        expect((await store.accessOf(user.id, at))!.revoked.before).toBe('2026-11-25T10:00:00.500Z');
        await before('2026-11-25T10:05:00.000Z');
        expect((await store.accessOf(user.id, at))!.revoked.before).toBe('2026-11-25T10:05:00.000Z');
        // Past its until, every token it refused has expired: it is gone.
        expect((await store.accessOf(user.id, '2026-11-25T12:00:00.000Z'))!.revoked.before).toBeNull();
      });

      it('revokes nothing for a user that does not exist, and does not fail', async () => {
        await store.revokeAccess(randomUUID(), { tokens: ['t'], at, until: inAnHour });
        await store.revokeAccessBefore(randomUUID(), { at, until: inAnHour });
      });

      it('keeps every revocation of concurrent calls', async () => {
        const user = aUser();
        await store.addUser(user);
        await Promise.all(
          Array.from({ length: 10 }, (_, n) =>
            store.revokeAccess(user.id, { tokens: [`t-${n}`], at, until: inAnHour }),
          ),
        );
        expect((await store.accessOf(user.id, at))!.revoked.tokens).toHaveLength(10);
      });
    });
  });
};
