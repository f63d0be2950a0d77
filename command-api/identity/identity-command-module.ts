import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import type { WriteLimiter } from '../../infrastructure/auth/write-limits.ts';
import type { RefreshTokenStore } from '../../infrastructure/auth/refresh-tokens.ts';
import type { Clock } from '../../infrastructure/clock.ts';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import type { HttpModule } from '../../infrastructure/http/http-module.ts';
import type { PersonalDataKeyring } from '../../infrastructure/personal-data/keyring.ts';
import type { UserStore } from '../../identity/users.ts';
import { addressRoutes, identityErrors } from './address-routes.ts';
import { createUserErasure } from './erase-user.ts';
import { erasureRoutes } from './erasure-routes.ts';

/** The identity feature's writes: the caller's stored addresses, and an admin's erasure of a user. */
export const identityCommandModule = ({
  users,
  refreshTokens,
  authenticator,
  writeLimits,
  eventStore,
  keyring,
  flushDeleted,
  clock,
}: {
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  authenticator: Authenticator;
  /** The per-user limit on addresses stored. */
  writeLimits: Pick<WriteLimiter, 'route' | 'counted'>;
  /** The log erasure appends PersonalDataErased to. */
  eventStore: EventStore;
  /** Seals stored addresses; erasure deletes the user's data key. */
  keyring: Pick<PersonalDataKeyring, 'erase' | 'sealFields'>;
  /** Drops what the store keeps of deleted rows beside its tables, once an erasure is done. */
  flushDeleted?: (() => Promise<void>) | undefined;
  clock: Clock;
}): HttpModule => ({
  routers: [
    addressRoutes({ users, authenticator, writeLimits, clock, personalData: keyring }),
    erasureRoutes({
      erasure: createUserErasure({
        users,
        refreshTokens,
        clock,
        authenticator,
        keyring,
        eventStore,
        ...(flushDeleted ? { flushDeleted } : {}),
      }),
      authenticator,
    }),
  ],
  paths: ['/users'],
  errorMappers: [identityErrors],
});
