import type { DatabaseSync } from 'node:sqlite';
import { inWriteTransaction, isUniqueViolation } from '../infrastructure/sqlite/open-database.ts';
import type { Role } from '../domain/identity/roles.ts';
import { revokedAccess, type Revocation } from './access-revocations.ts';
import {
  AddressLimitError,
  EmailTakenError,
  maxAddressesPerUser,
  normalizeEmail,
  type StoredAddress,
  type User,
  type UserStore,
} from './users.ts';

const schema = `
  CREATE TABLE IF NOT EXISTS users (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    roles         TEXT NOT NULL,
    disabled      INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS user_addresses (
    user_id     TEXT NOT NULL REFERENCES users (id),
    id          TEXT NOT NULL,
    street      TEXT NOT NULL,
    city        TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    country     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (user_id, id)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS access_revocations (
    user_id TEXT NOT NULL REFERENCES users (id),
    kind    TEXT NOT NULL CHECK (kind IN ('session', 'token', 'before')),
    id      TEXT NOT NULL,
    until   TEXT NOT NULL,
    PRIMARY KEY (user_id, kind, id)
  ) WITHOUT ROWID;
`;

type UserRow = {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  roles: string;
  disabled: number;
  created_at: string;
};
type AddressRow = {
  id: string;
  street: string;
  city: string;
  postal_code: string;
  country: string;
  created_at: string;
};

const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  passwordHash: row.password_hash,
  roles: JSON.parse(row.roles) as Role[],
  disabled: row.disabled === 1,
  createdAt: row.created_at,
});

const toAddress = (row: AddressRow): StoredAddress => ({
  id: row.id,
  street: row.street,
  city: row.city,
  postalCode: row.postal_code,
  country: row.country,
  createdAt: row.created_at,
});

/** Users and addresses in the embedded read store (a node:sqlite connection shared by the embedded stores). */
export const createSqliteUserStore = (db: DatabaseSync): UserStore => {
  db.exec(schema);
  const insertUser = db.prepare(
    'INSERT INTO users (id, email, name, password_hash, roles, disabled, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare('SELECT * FROM users WHERE id = ?');
  const byEmail = db.prepare('SELECT * FROM users WHERE email = ?');
  const byIds = db.prepare('SELECT * FROM users WHERE id IN (SELECT value FROM json_each(?))');
  const all = db.prepare('SELECT * FROM users ORDER BY created_at, email');
  const count = db.prepare('SELECT count(*) AS n FROM users');
  const activeWithRole = db.prepare(
    'SELECT id FROM users WHERE disabled = 0 AND EXISTS (SELECT 1 FROM json_each(users.roles) WHERE value = ?)',
  );
  const updateRoles = db.prepare('UPDATE users SET roles = ? WHERE id = ? RETURNING *');
  const updateDisabled = db.prepare('UPDATE users SET disabled = ? WHERE id = ? RETURNING *');
  const updatePasswordHash = db.prepare('UPDATE users SET password_hash = ? WHERE id = ? RETURNING *');
  const anonymiseUser = db.prepare(
    'UPDATE users SET email = ?, name = ?, password_hash = ?, disabled = 1 WHERE id = ? RETURNING *',
  );
  const deleteAddresses = db.prepare('DELETE FROM user_addresses WHERE user_id = ?');
  const countAddresses = db.prepare('SELECT count(*) AS n FROM user_addresses WHERE user_id = ?');
  const insertAddress = db.prepare(
    `INSERT INTO user_addresses (user_id, id, street, city, postal_code, country, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const addresses = db.prepare('SELECT * FROM user_addresses WHERE user_id = ? ORDER BY created_at, id');
  const address = db.prepare('SELECT * FROM user_addresses WHERE user_id = ? AND id = ?');
  const deleteAddress = db.prepare('DELETE FROM user_addresses WHERE user_id = ? AND id = ?');
  const revocationsOf = db.prepare(
    'SELECT kind, id FROM access_revocations WHERE user_id = ? AND until > ? ORDER BY kind, id',
  );
  const insertRevocation = db.prepare(
    `INSERT INTO access_revocations (user_id, kind, id, until) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id, kind, id) DO UPDATE SET until = max(until, excluded.until)`,
  );
  const dropExpiredRevocations = db.prepare(
    'DELETE FROM access_revocations WHERE user_id = ? AND until <= ?',
  );

  const revoke = (id: string, entries: [Revocation['kind'], string][], at: string, until: string) => {
    if (!findById(id)) return;
    inWriteTransaction(db, () => {
      dropExpiredRevocations.run(id, at);
      for (const [kind, entry] of entries) insertRevocation.run(id, kind, entry, until);
    });
  };

  const findById = (id: string) => {
    const row = byId.get(id) as UserRow | undefined;
    return row ? toUser(row) : null;
  };

  return {
    async addUser(user) {
      try {
        insertUser.run(
          user.id,
          normalizeEmail(user.email),
          user.name,
          user.passwordHash,
          JSON.stringify(user.roles),
          user.disabled ? 1 : 0,
          user.createdAt,
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw new EmailTakenError(user.email);
        throw error;
      }
    },
    async findById(id) {
      return findById(id);
    },
    async findByEmail(email) {
      const row = byEmail.get(normalizeEmail(email)) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async findByIds(ids) {
      if (ids.length === 0) return [];
      return (byIds.all(JSON.stringify(ids)) as UserRow[]).map(toUser);
    },
    async listUsers() {
      return (all.all() as UserRow[]).map(toUser);
    },
    async countUsers() {
      return (count.get() as { n: number }).n;
    },
    async activeUserIdsWithRole(role) {
      return (activeWithRole.all(role) as { id: string }[]).map(({ id }) => id);
    },
    async setRoles(id, roles) {
      const row = updateRoles.get(JSON.stringify(roles), id) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async setDisabled(id, disabled) {
      const row = updateDisabled.get(disabled ? 1 : 0, id) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async accessOf(id, now) {
      const row = byId.get(id) as UserRow | undefined;
      if (!row) return null;
      return {
        roles: JSON.parse(row.roles) as Role[],
        disabled: row.disabled === 1,
        revoked: revokedAccess(revocationsOf.all(id, now) as Revocation[]),
      };
    },
    async revokeAccess(id, { sessions = [], tokens = [], at, until }) {
      const entries = [
        ...sessions.map((session): [Revocation['kind'], string] => ['session', session]),
        ...tokens.map((token): [Revocation['kind'], string] => ['token', token]),
      ];
      revoke(id, entries, at, until);
    },
    async revokeAccessBefore(id, { at, until }) {
      revoke(id, [['before', at]], at, until);
    },
    async setPasswordHash(id, passwordHash) {
      const row = updatePasswordHash.get(passwordHash, id) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async anonymise(id, { email, name, passwordHash }) {
      const row = inWriteTransaction(db, () => {
        deleteAddresses.run(id);
        return anonymiseUser.get(email, name, passwordHash, id) as UserRow | undefined;
      });
      return row ? toUser(row) : null;
    },
    async addAddress(userId, stored) {
      if (!findById(userId)) return null;
      inWriteTransaction(db, () => {
        if ((countAddresses.get(userId) as { n: number }).n >= maxAddressesPerUser)
          throw new AddressLimitError();
        insertAddress.run(
          userId,
          stored.id,
          stored.street,
          stored.city,
          stored.postalCode,
          stored.country,
          stored.createdAt,
        );
      });
      return stored;
    },
    async listAddresses(userId) {
      return (addresses.all(userId) as AddressRow[]).map(toAddress);
    },
    async findAddress(userId, addressId) {
      const row = address.get(userId, addressId) as AddressRow | undefined;
      return row ? toAddress(row) : null;
    },
    async removeAddress(userId, addressId) {
      return deleteAddress.run(userId, addressId).changes === 1;
    },
  };
};
