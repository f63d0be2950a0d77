import type { Role } from '../domain/identity/roles.ts';
import type { AccountAccess, Accounts } from '../infrastructure/auth/accounts.ts';

export type Address = { street: string; city: string; postalCode: string; country: string };
export type StoredAddress = Address & { id: string; createdAt: string };

export type User = {
  id: string;
  /** Lower-cased; unique. */
  email: string;
  name: string;
  /** scrypt, self-describing (see passwords.ts); never plain, never logged. */
  passwordHash: string;
  roles: Role[];
  disabled: boolean;
  createdAt: string;
};

/** What every authenticated request relies on of its user: one read. */
export type UserAccess = AccountAccess & { roles: Role[] };

/** How many addresses one user may keep: enough for any shopper, a bound for anyone else. */
export const maxAddressesPerUser = 50;

/** The port signing in needs (infrastructure/auth/accounts.ts), its reads answering whole users. */
type UserAccounts = Omit<Accounts, 'findById' | 'findByEmail' | 'accessOf'>;

/**
 * Users, their roles and their stored addresses. Addresses are always reached through their owner,
 * so another user's address is simply not found.
 */
export type UserStore = UserAccounts & {
  /** Throws EmailTakenError when the e-mail is registered already. */
  addUser(user: User): Promise<void>;
  findById(id: string): Promise<User | null>;
  findByEmail(email: string): Promise<User | null>;
  /** The users of these ids that exist, in no particular order: one read, for a page of orders. */
  findByIds(ids: readonly string[]): Promise<User[]>;
  listUsers(): Promise<User[]>;
  countUsers(): Promise<number>;
  /** The ids of the users holding this role who are not disabled (erased users are disabled). */
  activeUserIdsWithRole(role: Role): Promise<string[]>;
  /** Returns the updated user, or null when there is none with this id. */
  setRoles(id: string, roles: Role[]): Promise<User | null>;
  setDisabled(id: string, disabled: boolean): Promise<User | null>;
  /** Replaces the password's hash (the admin CLI's user:set-password); null when there is no such user. */
  setPasswordHash(id: string, passwordHash: string): Promise<User | null>;

  accessOf(id: string, now: string): Promise<UserAccess | null>;
  /**
   * Erasure: replaces the e-mail, the name and the password's hash with these, disables the user and deletes
   * its addresses, at once; returns the updated user, or null when there is none with this id.
   */
  anonymise(id: string, anonymous: Pick<User, 'email' | 'name' | 'passwordHash'>): Promise<User | null>;

  /** Throws AddressLimitError past maxAddressesPerUser; null when the user does not exist. */
  addAddress(userId: string, address: StoredAddress): Promise<StoredAddress | null>;
  listAddresses(userId: string): Promise<StoredAddress[]>;
  findAddress(userId: string, addressId: string): Promise<StoredAddress | null>;
  /** True when the user had this address and it is gone now. */
  removeAddress(userId: string, addressId: string): Promise<boolean>;
};

export class EmailTakenError extends Error {
  readonly kind = 'email-taken';
  constructor(email: string) {
    super(`a user with e-mail ${email} exists already`);
  }
}

export class AddressLimitError extends Error {
  readonly kind = 'address-limit';
  constructor() {
    super(`a user keeps at most ${maxAddressesPerUser} addresses`);
  }
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** Erasing, disabling or demoting the only active admin: nobody could administer the service any more. */
export class LastAdminError extends Error {
  readonly kind = 'last-admin';
  constructor() {
    super('This is the last active admin: make another user admin (or enable one) first.');
  }
}

/**
 * Throws LastAdminError when `userId` is an active admin and no other user is: the change asked (erasure,
 * disabling, taking the admin role away) would leave the service without one.
 */
export const keepAnAdmin = async (
  users: Pick<UserStore, 'activeUserIdsWithRole'>,
  userId: string,
): Promise<void> => {
  const admins = await users.activeUserIdsWithRole('admin');
  if (admins.includes(userId) && admins.length === 1) throw new LastAdminError();
};
