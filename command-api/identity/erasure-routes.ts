import type { Router } from 'express';
import { notFound } from '../../infrastructure/http/api-error.ts';
import { uuidParam } from '../../infrastructure/http/path-params.ts';
import { requestIdOf } from '../../infrastructure/http/request-id.ts';
import { createRouter } from '../../infrastructure/http/router.ts';
import { authenticate, principalOf } from '../../infrastructure/auth/authenticate.ts';
import { authorize } from '../authorize.ts';
import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import type { UserErasure } from './erase-user.ts';

const noSuchUser = 'There is no user with this id.';

/**
 * DELETE /users/{id} (admins): erases the user's personal data (erase-user.ts). 204 each time,
 * the first and every repeat; 404 for an id no user ever had.
 */
export const erasureRoutes = ({
  erasure,
  authenticator,
}: {
  erasure: UserErasure;
  authenticator: Authenticator;
}): Router => {
  const router = createRouter();
  router.delete(
    '/users/:userId',
    authenticate(authenticator),
    authorize('eraseUser'),
    async (request, response) => {
      const userId = uuidParam(request, 'userId', noSuchUser);
      const { userId: adminId, roles } = principalOf(response);
      const outcome = await erasure.erase(userId, {
        actor: { userId: adminId, roles },
        correlationId: requestIdOf(response),
      });
      if (!outcome) throw notFound(noSuchUser);
      response.status(204).end();
    },
  );
  return router;
};
