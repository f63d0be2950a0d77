import type { Clock } from '../clock.ts';
import { accessTokenLifetimeSeconds } from './access-tokens.ts';
import type { Authenticator } from './authenticator.ts';
import type { RefreshTokenStore, Session } from './refresh-tokens.ts';
import type { Accounts } from './accounts.ts';

/**
 * Sessions are refresh-token families; every access token names its session (`sid`). Ending a session
 * revokes its refresh tokens and refuses its access tokens until the last of them would have expired, so
 * that revoking a refresh token revokes what was issued with it (RFC 7009, section 2.1). Every path that
 * ends sessions goes through here: sign-out, a user ending its sessions, refresh-token reuse, an admin.
 */
export const createSessions = ({
  users,
  refreshTokens,
  authenticator,
  clock,
}: {
  users: Pick<Accounts, 'revokeAccess' | 'revokeAccessBefore'>;
  refreshTokens: RefreshTokenStore;
  /** Told of each change, so that this process refuses at once what it revoked. */
  authenticator?: Pick<Authenticator, 'forget'>;
  clock: Clock;
}) => {
  /** Now, and when every access token issued until now has expired. */
  const window = () => {
    const now = clock.now();
    return {
      at: now.toISOString(),
      until: new Date(now.getTime() + accessTokenLifetimeSeconds * 1000).toISOString(),
    };
  };

  return {
    list: (userId: string): Promise<Session[]> =>
      refreshTokens.listSessions(userId, clock.now().toISOString()),

    /** Ends one session of the user: its refresh tokens and its access tokens. */
    async end(userId: string, sessionId: string): Promise<void> {
      const { at, until } = window();
      await refreshTokens.revokeFamily(sessionId, at);
      await users.revokeAccess(userId, { sessions: [sessionId], at, until });
      authenticator?.forget(userId);
    },

    /** Ends every session of the user, and refuses every access token issued until now. */
    async endAll(userId: string): Promise<void> {
      const { at, until } = window();
      const sessions = await refreshTokens.revokeAllOfUser(userId, at);
      await users.revokeAccess(userId, { sessions, at, until });
      await users.revokeAccessBefore(userId, { at, until });
      authenticator?.forget(userId);
    },

    /** Refuses one access token (by `jti`) until it expires. */
    async revokeAccessToken(userId: string, tokenId: string, expiresAtSeconds: number): Promise<void> {
      const { at } = window();
      const until = new Date(expiresAtSeconds * 1000).toISOString();
      if (until <= at) return;
      await users.revokeAccess(userId, { tokens: [tokenId], at, until });
      authenticator?.forget(userId);
    },
  };
};

export type Sessions = ReturnType<typeof createSessions>;
