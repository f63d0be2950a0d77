import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import type { Reveal } from '../../infrastructure/personal-data/revealed.ts';
import type { UserStore } from '../../identity/users.ts';
import { userRoutes } from './user-routes.ts';

/** The identity feature's reads: the caller's own account and stored addresses. */
export const identityQueryModule = ({
  users,
  authenticator,
  reveal,
}: {
  users: UserStore;
  authenticator: Authenticator;
  /** Opens the sealed addresses in answers. */
  reveal: Reveal;
}): HttpModule => ({
  routers: [userRoutes({ users, authenticator, reveal })],
  paths: ['/users/me'],
  // The caller's own account: never for a shared cache.
  cachePolicy: { privatePaths: ['/users/me'] },
});
