import { MongoServerError, type Db } from 'mongodb';
import { revokedAccess, type Revocation } from './access-revocations.ts';
import type { Role } from '../domain/identity/roles.ts';
import {
  AddressLimitError,
  EmailTakenError,
  maxAddressesPerUser,
  normalizeEmail,
  type StoredAddress,
  type User,
  type UserStore,
} from './users.ts';

type UserDocument = Omit<User, 'id'> & { _id: string; addresses: StoredAddress[] };

const toUser = ({ _id, addresses: _addresses, ...user }: UserDocument): User => ({ id: _id, ...user });

const duplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;

/** A revocation in force until `until`; its _id makes revoking the same thing twice one document. */
type RevocationDocument = Revocation & { _id: string; userId: string; until: string };

/**
 * Users in MongoDB, one document each with its addresses embedded: adding or removing an address is one
 * atomic update of one document, so no transaction is needed (FerretDB has none). Access revocations are
 * documents of their own, each one insert: on FerretDB, concurrent updates of one document (a $push)
 * can lose each other, inserts cannot.
 */
export const createMongoUserStore = async (db: Db): Promise<UserStore> => {
  const users = db.collection<UserDocument>('users');
  const revocations = db.collection<RevocationDocument>('access_revocations');
  await users.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
  await revocations.createIndex({ userId: 1, until: 1 }, { name: 'user_until' });
  const withoutAddresses = { projection: { addresses: 0 } } as const;

  const updated = async (id: string, set: Partial<UserDocument>) => {
    // No projection here: FerretDB 1.24 does not implement one on findAndModify.
    const document = await users.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' });
    return document ? toUser(document) : null;
  };

  const findAddress = async (userId: string, addressId: string) => {
    const document = await users.findOne({ _id: userId }, { projection: { addresses: 1 } });
    return document?.addresses.find((address) => address.id === addressId) ?? null;
  };

  const revoke = async (userId: string, entries: Revocation[], at: string, until: string) => {
    if ((await users.countDocuments({ _id: userId }, { limit: 1 })) === 0) return;
    await revocations.deleteMany({ userId, until: { $lte: at } });
    for (const entry of entries) {
      await revocations.updateOne(
        { _id: `${userId} ${entry.kind} ${entry.id}` },
        { $setOnInsert: { userId, ...entry }, $max: { until } },
        { upsert: true },
      );
    }
  };

  return {
    async addUser({ id, ...user }) {
      try {
        await users.insertOne({ _id: id, ...user, email: normalizeEmail(user.email), addresses: [] });
      } catch (error) {
        if (duplicateKey(error)) throw new EmailTakenError(user.email);
        throw error;
      }
    },
    async findById(id) {
      const document = await users.findOne({ _id: id }, withoutAddresses);
      return document ? toUser({ ...document, addresses: [] }) : null;
    },
    async findByEmail(email) {
      const document = await users.findOne({ email: normalizeEmail(email) }, withoutAddresses);
      return document ? toUser({ ...document, addresses: [] }) : null;
    },
    async findByIds(ids) {
      if (ids.length === 0) return [];
      const documents = await users.find({ _id: { $in: [...ids] } }, withoutAddresses).toArray();
      return documents.map((document) => toUser({ ...document, addresses: [] }));
    },
    async listUsers() {
      const documents = await users.find({}, withoutAddresses).sort({ createdAt: 1, email: 1 }).toArray();
      return documents.map((document) => toUser({ ...document, addresses: [] }));
    },
    async countUsers() {
      return users.countDocuments();
    },
    async activeUserIdsWithRole(role) {
      const documents = await users
        .find({ roles: role, disabled: false }, { projection: { _id: 1 } })
        .toArray();
      return documents.map(({ _id }) => _id);
    },
    async setRoles(id, roles: Role[]) {
      return updated(id, { roles });
    },
    async setDisabled(id, disabled) {
      return updated(id, { disabled });
    },
    async accessOf(id, now) {
      const [user, revoked] = await Promise.all([
        users.findOne({ _id: id }, { projection: { roles: 1, disabled: 1 } }),
        revocations.find({ userId: id, until: { $gt: now } }, { projection: { kind: 1, id: 1 } }).toArray(),
      ]);
      return user && { roles: user.roles, disabled: user.disabled, revoked: revokedAccess(revoked) };
    },
    async revokeAccess(id, { sessions = [], tokens = [], at, until }) {
      const entries: Revocation[] = [
        ...sessions.map((session) => ({ kind: 'session' as const, id: session })),
        ...tokens.map((token) => ({ kind: 'token' as const, id: token })),
      ];
      await revoke(id, entries, at, until);
    },
    async revokeAccessBefore(id, { at, until }) {
      await revoke(id, [{ kind: 'before', id: at }], at, until);
    },
    async setPasswordHash(id, passwordHash) {
      return updated(id, { passwordHash });
    },
    async anonymise(id, { email, name, passwordHash }) {
      const document = await users.findOneAndUpdate(
        { _id: id },
        { $set: { email, name, passwordHash, disabled: true, addresses: [] } },
        { returnDocument: 'after' },
      );
      return document ? toUser(document) : null;
    },
    async addAddress(userId, address) {
      // The size guard and the push are one atomic update of the user's document.
      const result = await users.updateOne(
        { _id: userId, [`addresses.${maxAddressesPerUser - 1}`]: { $exists: false } },
        { $push: { addresses: address } },
      );
      if (result.matchedCount === 1) return address;
      if ((await users.countDocuments({ _id: userId })) === 0) return null;
      throw new AddressLimitError();
    },
    async listAddresses(userId) {
      const document = await users.findOne({ _id: userId }, { projection: { addresses: 1 } });
      return document?.addresses ?? [];
    },
    findAddress,
    async removeAddress(userId, addressId) {
      // $pull by the exact stored subdocument: FerretDB 1.24 matches $pull conditions only exactly.
      const address = await findAddress(userId, addressId);
      if (!address) return false;
      const result = await users.updateOne({ _id: userId }, { $pull: { addresses: address } });
      return result.modifiedCount === 1;
    },
  };
};
