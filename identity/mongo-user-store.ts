import { MongoServerError, type Db } from 'mongodb';
import type { Role } from './roles.ts';
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

/**
 * Users in MongoDB, one document each with its addresses embedded: adding or removing an address is one
 * atomic update of one document, so no transaction is needed (FerretDB has none).
 */
export const createMongoUserStore = async (db: Db): Promise<UserStore> => {
  const users = db.collection<UserDocument>('users');
  await users.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
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
    async listUsers() {
      const documents = await users.find({}, withoutAddresses).sort({ createdAt: 1, email: 1 }).toArray();
      return documents.map((document) => toUser({ ...document, addresses: [] }));
    },
    async countUsers() {
      return users.countDocuments();
    },
    async setRoles(id, roles: Role[]) {
      return updated(id, { roles });
    },
    async setDisabled(id, disabled) {
      return updated(id, { disabled });
    },
    async setPasswordHash(id, passwordHash) {
      return updated(id, { passwordHash });
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
