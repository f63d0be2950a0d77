import { UnauthorizedError } from '../infrastructure/http/api-error.ts';
import type { AccessTokenVerifier, Principal } from './access-tokens.ts';
import type { Role } from './roles.ts';
import type { UserStore } from './users.ts';

/** What a request may rely on of the user behind a token, as the user store says now. */
type UserAccess = { roles: readonly Role[]; disabled: boolean };

export type Authenticator = {
  /** The principal of a bearer token, or UnauthorizedError (401, invalid_token). */
  principalFor(token: string): Promise<Principal>;
  /** Drops what is known of a user, after this process changed it: the next request reads it again. */
  forget(userId: string): void;
};

/**
 * How long what a process knows of a user may be used: a user disabled, removed or stripped of a role stops
 * working on every route of every process within this (plus one store read), access tokens already issued
 * included. The guarantee documented is 5 seconds.
 */
export const userAccessMaxAgeMs = 1_000;

const refused = (detail: string) => new UnauthorizedError(detail, { invalidToken: true });

/**
 * Access tokens are verified with public keys alone, but a signature says only what was true when the token
 * was issued. Every request therefore also checks the user as the store knows it, read at most once per
 * `maxAgeMs` per user (concurrent requests share the read): a token whose `sub` names no user, or a disabled
 * one, is refused, and the token's roles count only while the user still holds them.
 */
export const createAuthenticator = ({
  verifier,
  users,
  maxAgeMs = userAccessMaxAgeMs,
  now = () => performance.now(),
  maxUsers = 100_000,
}: {
  verifier: AccessTokenVerifier;
  users: Pick<UserStore, 'findById'>;
  maxAgeMs?: number;
  /** A monotonic clock in ms: how old a read is, whatever the business clock says. */
  now?: () => number;
  /** Users remembered at most; the oldest reads go first. */
  maxUsers?: number;
}): Authenticator => {
  const known = new Map<string, { access: UserAccess | null; readAt: number }>();
  const reading = new Map<string, Promise<UserAccess | null>>();

  const read = (userId: string): Promise<UserAccess | null> => {
    const pending = reading.get(userId);
    if (pending) return pending;
    const readAt = now();
    const promise = users
      .findById(userId)
      .then((user) => {
        const access = user && { roles: user.roles, disabled: user.disabled };
        known.delete(userId);
        if (known.size >= maxUsers) known.delete(known.keys().next().value!);
        known.set(userId, { access, readAt });
        return access;
      })
      .finally(() => reading.delete(userId));
    reading.set(userId, promise);
    return promise;
  };

  const accessOf = (userId: string): UserAccess | null | Promise<UserAccess | null> => {
    const entry = known.get(userId);
    return entry && now() - entry.readAt < maxAgeMs ? entry.access : read(userId);
  };

  return {
    async principalFor(token) {
      const claimed = verifier.verify(token);
      const access = await accessOf(claimed.userId);
      if (access === null) throw refused('The account behind this token does not exist.');
      if (access.disabled) throw refused('The account behind this token is disabled.');
      const roles = claimed.roles.filter((role) => access.roles.includes(role));
      return roles.length === claimed.roles.length ? claimed : { ...claimed, roles };
    },
    forget(userId) {
      known.delete(userId);
    },
  };
};
