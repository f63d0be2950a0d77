import type { StoredAddress, User, UserStore } from './users.ts';

/** A stored address as the API shows it. */
export const addressView = ({ id, street, city, postalCode, country }: StoredAddress) => ({
  id,
  street,
  city,
  postalCode,
  country,
});

/**
 * The caller's own account, read now: null when it is gone or disabled (the authenticator lets a token of
 * such an account through for up to a second; the caller's own routes look again).
 */
export const activeUser = async (
  users: Pick<UserStore, 'findById'>,
  userId: string,
): Promise<User | null> => {
  const user = await users.findById(userId);
  return user && !user.disabled ? user : null;
};
