import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { z } from 'zod';
import { isCountryCode } from '../../domain/identity/countries.ts';
import { authenticate, principalOf } from '../../infrastructure/auth/authenticate.ts';
import { accountGone, type Authenticator } from '../../infrastructure/auth/authenticator.ts';
import type { WriteLimiter } from '../../infrastructure/auth/write-limits.ts';
import type { Clock } from '../../infrastructure/clock.ts';
import { acceptBody } from '../../infrastructure/http/accept-body.ts';
import { ApiError, notFound } from '../../infrastructure/http/api-error.ts';
import type { ErrorMapper } from '../../infrastructure/http/problem-details.ts';
import { createRouter } from '../../infrastructure/http/router.ts';
import { parseInput } from '../../infrastructure/http/validation.ts';
import type { PersonalDataKeyring } from '../../infrastructure/personal-data/keyring.ts';
import { activeUser, addressView, storedTokens } from '../../identity/user-resource.ts';
import type { SealedText } from '../../domain/shared/personal-data.ts';
import {
  AddressLimitError,
  LastAdminError,
  type StoredAddress,
  type UserStore,
} from '../../identity/users.ts';
import { authorize } from '../authorize.ts';

/** How the identity stores' errors answer over HTTP. */
export const identityErrors: ErrorMapper = (error) =>
  error instanceof AddressLimitError || error instanceof LastAdminError
    ? new ApiError('conflict', error.message)
    : undefined;

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** A stored address's fields, country validated against ISO 3166-1 alpha-2. */
export const addressSchema = z.strictObject({
  street: text(200),
  city: text(100),
  postalCode: text(20),
  country: z.string().refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code, such as FR'),
});

/**
 * A stored address is the user's personal data: kept sealed under the user's data key (every field), so
 * no store holds it in the clear, and an order copies the sealed form (domain/orders/personal-data.ts).
 */
const sealedAddressFields = [['street'], ['city'], ['postalCode'], ['country']] as const;
type SealedAddress = Omit<StoredAddress, 'street' | 'city' | 'postalCode' | 'country'> & {
  street: SealedText;
  city: SealedText;
  postalCode: SealedText;
  country: SealedText;
};

/** POST /users/me/addresses, DELETE /users/me/addresses/{id}: the caller's stored addresses. */
export const addressRoutes = ({
  users,
  authenticator,
  writeLimits,
  clock,
  personalData,
}: {
  users: UserStore;
  authenticator: Authenticator;
  /** The per-user limit on addresses stored. */
  writeLimits: Pick<WriteLimiter, 'route' | 'counted'>;
  clock: Clock;
  /** Seals stored addresses. */
  personalData: Pick<PersonalDataKeyring, 'sealFields'>;
}): Router => {
  const router = createRouter();
  // Each route authenticates itself: a path beside them (a trailing slash, another case) is a 404, not a 401.
  const auth = authenticate(authenticator);

  router.post(
    '/users/me/addresses',
    auth,
    authorize('addAddress'),
    writeLimits.route('addresses'),
    acceptBody('json'),
    async (request, response) => {
      const address = parseInput(addressSchema, request.body);
      const user = await activeUser(users, principalOf(response).userId);
      if (!user) throw accountGone();
      const stored: StoredAddress = { id: randomUUID(), ...address, createdAt: clock.now().toISOString() };
      const sealed = await personalData.sealFields(user.id, stored, sealedAddressFields);
      await users.addAddress(user.id, storedTokens(sealed as unknown as SealedAddress));
      await writeLimits.counted('addresses', principalOf(response));
      response.status(201).location(`/users/me/addresses/${stored.id}`).json(addressView(stored));
    },
  );

  router.delete(
    '/users/me/addresses/:addressId',
    auth,
    authorize('removeAddress'),
    async (request, response) => {
      const user = await activeUser(users, principalOf(response).userId);
      if (!user) throw accountGone();
      if (!(await users.removeAddress(user.id, request.params['addressId'] as string))) {
        throw notFound('You have no address with this id.');
      }
      response.status(204).end();
    },
  );

  return router;
};
