import { fromLegacyStored, type PersonalText, type SealedText } from '../domain/shared/personal-data.ts';
import type { StoredAddress, User, UserStore } from './users.ts';

type AddressParts<T> = { street: T; city: T; postalCode: T; country: T };

/**
 * A stored address with its parts as sealed fields, to be opened where it leaves the service or copied into
 * an order. The store keeps each part as its sealed field's token (every part is sealed when it is stored);
 * a part that is no token of its owner's is text an earlier release kept as it was sent (it took text of
 * that shape for sealed), and stays that text: no other owner's key is ever tried on it.
 */
export const sealedStoredAddress = <A extends StoredAddress>(
  userId: string,
  stored: A,
): Omit<A, keyof AddressParts<string>> & AddressParts<PersonalText> => ({
  ...stored,
  street: fromLegacyStored(stored.street, userId),
  city: fromLegacyStored(stored.city, userId),
  postalCode: fromLegacyStored(stored.postalCode, userId),
  country: fromLegacyStored(stored.country, userId),
});

/** An address whose parts were sealed as the store keeps it: each part its token. */
export const storedTokens = <A extends AddressParts<SealedText>>(
  sealed: A,
): Omit<A, keyof AddressParts<SealedText>> & AddressParts<string> => ({
  ...sealed,
  street: sealed.street.sealed,
  city: sealed.city.sealed,
  postalCode: sealed.postalCode.sealed,
  country: sealed.country.sealed,
});

/** A stored address as the API shows it. */
export const addressView = <T>({
  id,
  street,
  city,
  postalCode,
  country,
}: { id: string } & AddressParts<T>) => ({
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
