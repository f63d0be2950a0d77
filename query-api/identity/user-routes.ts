import type { Router } from 'express';
import { authenticate, principalOf } from '../../infrastructure/auth/authenticate.ts';
import { accountGone, type Authenticator } from '../../infrastructure/auth/authenticator.ts';
import { notFound } from '../../infrastructure/http/api-error.ts';
import { createRouter } from '../../infrastructure/http/router.ts';
import type { Reveal } from '../../infrastructure/personal-data/revealed.ts';
import { sendRevealedJson } from '../../infrastructure/personal-data/revealed.ts';
import { activeUser, addressView, sealedStoredAddress } from '../../identity/user-resource.ts';
import type { UserStore } from '../../identity/users.ts';
import { authorize } from '../authorize.ts';

/** GET /users/me, GET /users/me/addresses, GET /users/me/addresses/{id}: the caller's own account. */
export const userRoutes = ({
  users,
  authenticator,
  reveal,
}: {
  users: UserStore;
  authenticator: Authenticator;
  /** Opens the sealed addresses in answers. */
  reveal: Reveal;
}): Router => {
  const router = createRouter();
  // Each route authenticates itself: a path beside them (a trailing slash, another case) is a 404, not a 401.
  const auth = authenticate(authenticator);

  const currentUser = async (userId: string) => {
    const user = await activeUser(users, userId);
    if (!user) throw accountGone();
    return user;
  };

  router.get('/users/me', auth, authorize('getCurrentUser'), async (request, response) => {
    const user = await currentUser(principalOf(response).userId);
    const addresses = await users.listAddresses(user.id);
    await sendRevealedJson(reveal, request, response, {
      id: user.id,
      email: user.email,
      name: user.name,
      roles: user.roles,
      addresses: addresses.map((address) => addressView(sealedStoredAddress(user.id, address))),
    });
  });

  router.get('/users/me/addresses', auth, authorize('listAddresses'), async (request, response) => {
    const user = await currentUser(principalOf(response).userId);
    await sendRevealedJson(
      reveal,
      request,
      response,
      (await users.listAddresses(user.id)).map((address) =>
        addressView(sealedStoredAddress(user.id, address)),
      ),
    );
  });

  router.get('/users/me/addresses/:addressId', auth, authorize('getAddress'), async (request, response) => {
    const user = await currentUser(principalOf(response).userId);
    const address = await users.findAddress(user.id, request.params['addressId'] as string);
    if (!address) throw notFound('You have no address with this id.');
    await sendRevealedJson(reveal, request, response, addressView(sealedStoredAddress(user.id, address)));
  });

  return router;
};
