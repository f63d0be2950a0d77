import { createSharedReads } from '../caching/shared-reads.ts';
import type { Clock } from '../clock.ts';
import { UnauthorizedError } from '../http/api-error.ts';
import type { AccessTokenVerifier, Principal } from './access-tokens.ts';
import { accountAccessMaxAgeMs, type AccountAccess, type Accounts } from './accounts.ts';

export type Authenticator = {
  /** The principal of a bearer token, or UnauthorizedError (401, invalid_token). */
  principalFor(token: string): Promise<Principal>;
  /** Drops what is known of a user, after this process changed it: the next request reads it again. */
  forget(userId: string): void;
};

const refused = (detail: string) => new UnauthorizedError(detail, { invalidToken: true });

/**
 * 401 for a route that read the caller's account again and found it gone or disabled: the authenticator's
 * last read may be up to `accountAccessMaxAgeMs` old.
 */
export const accountGone = () => refused('The account behind this token no longer exists or is disabled.');

/** Why a live, well-signed token is refused, or null when it is not. */
const refusal = (claimed: Principal, access: AccountAccess | null): string | null => {
  if (access === null) return 'The account behind this token does not exist.';
  if (access.disabled) return 'The account behind this token is disabled.';
  const { sessions, tokens, before } = access.revoked;
  if (claimed.sessionId !== null && sessions.includes(claimed.sessionId)) {
    return 'The session of this access token has ended.';
  }
  if (tokens.includes(claimed.tokenId)) return 'The access token was revoked.';
  // Tokens with a session are refused by their session; this catches those issued before sessions existed.
  if (claimed.sessionId === null && before !== null && claimed.issuedAt * 1000 <= Date.parse(before)) {
    return 'The access token was revoked.';
  }
  return null;
};

/**
 * Access tokens are verified with public keys alone, but a signature says only what was true when the token
 * was issued. Every request therefore also checks the user as the store knows it, read at most once per
 * `maxAgeMs` per user (concurrent requests share the read): a token whose `sub` names no user, of a disabled
 * user, of an ended session, or revoked, is refused, and the token's roles count only while the user still
 * holds them.
 */
export const createAuthenticator = ({
  verifier,
  users,
  clock,
  maxAgeMs = accountAccessMaxAgeMs,
  now = () => performance.now(),
  maxUsers = 100_000,
}: {
  verifier: AccessTokenVerifier;
  users: Pick<Accounts, 'accessOf'>;
  /** The business clock: revocations last until a moment of it. */
  clock: Clock;
  maxAgeMs?: number;
  /** A monotonic clock in ms: how old a read is, whatever the business clock says. */
  now?: () => number;
  /** Users remembered at most; the oldest reads go first. */
  maxUsers?: number;
}): Authenticator => {
  const accesses = createSharedReads({
    read: (userId) => users.accessOf(userId, clock.now().toISOString()),
    maxAgeMs,
    now,
    maxEntries: maxUsers,
  });

  return {
    async principalFor(token) {
      const claimed = verifier.verify(token);
      const access = await accesses.get(claimed.userId);
      const why = refusal(claimed, access);
      if (why !== null || access === null) throw refused(why ?? '');
      const roles = claimed.roles.filter((role) => access.roles.includes(role));
      return roles.length === claimed.roles.length ? claimed : { ...claimed, roles };
    },
    forget(userId) {
      accesses.forget(userId);
    },
  };
};
