import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { createRouter } from '../infrastructure/http/router.ts';
import { z } from 'zod';
import type { Clock } from '../infrastructure/clock.ts';
import { acceptBody } from '../infrastructure/http/accept-body.ts';
import { ApiError, notFound, UnauthorizedError } from '../infrastructure/http/api-error.ts';
import type { ErrorMapper } from '../infrastructure/http/problem-details.ts';
import type { PersonalDataKeyring } from '../infrastructure/personal-data/keyring.ts';
import { sendRevealedJson } from '../infrastructure/personal-data/revealed.ts';
import { parseInput } from '../infrastructure/http/validation.ts';
import { authenticate, authorize, principalOf } from './authenticate.ts';
import type { Authenticator } from './authenticator.ts';
import { isCountryCode } from './countries.ts';
import { AddressLimitError, type StoredAddress, type UserStore } from './users.ts';

/** How the identity stores' errors answer over HTTP. */
export const identityErrors: ErrorMapper = (error) =>
  error instanceof AddressLimitError ? new ApiError('conflict', error.message) : undefined;

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** A stored address's fields, country validated against ISO 3166-1 alpha-2. */
export const addressSchema = z.strictObject({
  street: text(200),
  city: text(100),
  postalCode: text(20),
  country: z.string().refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code, such as FR'),
});

const addressView = ({ id, street, city, postalCode, country }: StoredAddress) => ({
  id,
  street,
  city,
  postalCode,
  country,
});

/**
 * A stored address is the user's personal data: kept sealed under the user's data key (every field), so
 * no store holds it in the clear, and an order copies the sealed form (domain/orders/personal-data.ts).
 */
const sealedAddressFields = [['street'], ['city'], ['postalCode'], ['country']] as const;

/** GET /users/me, POST /users/me/addresses, DELETE /users/me/addresses/{id}. */
export const userRoutes = ({
  users,
  authenticator,
  clock,
  personalData,
}: {
  users: UserStore;
  authenticator: Authenticator;
  clock: Clock;
  /** Seals stored addresses, opens them in answers. */
  personalData: Pick<PersonalDataKeyring, 'sealFields' | 'reveal'>;
}): Router => {
  const reveal = personalData.reveal;
  const router = createRouter();
  router.use('/users/me', authenticate(authenticator));

  const currentUser = async (userId: string) => {
    const user = await users.findById(userId);
    if (!user || user.disabled) {
      throw new UnauthorizedError('The account behind this token no longer exists or is disabled.', {
        invalidToken: true,
      });
    }
    return user;
  };

  router.get('/users/me', authorize('getCurrentUser'), async (request, response) => {
    const user = await currentUser(principalOf(response).userId);
    const addresses = await users.listAddresses(user.id);
    await sendRevealedJson(reveal, request, response, {
      id: user.id,
      email: user.email,
      name: user.name,
      roles: user.roles,
      addresses: addresses.map(addressView),
    });
  });

  router.get('/users/me/addresses', authorize('listAddresses'), async (request, response) => {
    const user = await currentUser(principalOf(response).userId);
    await sendRevealedJson(reveal, request, response, (await users.listAddresses(user.id)).map(addressView));
  });

  router.get('/users/me/addresses/:addressId', authorize('getAddress'), async (request, response) => {
    const user = await currentUser(principalOf(response).userId);
    const address = await users.findAddress(user.id, request.params['addressId'] as string);
    if (!address) throw notFound('You have no address with this id.');
    await sendRevealedJson(reveal, request, response, addressView(address));
  });

  router.post(
    '/users/me/addresses',
    authorize('addAddress'),
    acceptBody('json'),
    async (request, response) => {
      const address = parseInput(addressSchema, request.body);
      const user = await currentUser(principalOf(response).userId);
      const stored: StoredAddress = { id: randomUUID(), ...address, createdAt: clock.now().toISOString() };
      await users.addAddress(user.id, await personalData.sealFields(user.id, stored, sealedAddressFields));
      response.status(201).location(`/users/me/addresses/${stored.id}`).json(addressView(stored));
    },
  );

  router.delete('/users/me/addresses/:addressId', authorize('removeAddress'), async (request, response) => {
    const user = await currentUser(principalOf(response).userId);
    if (!(await users.removeAddress(user.id, request.params['addressId'] as string))) {
      throw notFound('You have no address with this id.');
    }
    response.status(204).end();
  });

  return router;
};
