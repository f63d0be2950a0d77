import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { accessTokenLifetimeSeconds, type AccessTokenIssuer } from './access-tokens.ts';
import { invalidGrant } from './oauth-errors.ts';
import { createDecoyCheck, verifyPassword } from './passwords.ts';
import type { RefreshTokenRecord, RefreshTokenStore } from './refresh-tokens.ts';
import type { Sessions } from './sessions.ts';
import type { Accounts } from './accounts.ts';

/** The body of a successful token response (docs/users-and-tokens.md). */
export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
};

/** A refresh token not exchanged within this time expires. */
export const refreshTokenLifetimeMs = 30 * 24 * 3600 * 1000;

export const hashRefreshToken = (token: string): string =>
  createHash('sha256').update(token).digest('base64url');

/** Who asks for tokens: shown in the user's list of sessions. */
export type TokenClient = { address: string | null; userAgent: string | null };

/** What a token response starts or continues: the session and who is in it. */
type SessionOf = Pick<RefreshTokenRecord, 'familyId' | 'sessionStartedAt'>;

/**
 * The password grant, the refresh-token rotation and revocation (RFC 7009), over the user and refresh-token
 * stores. Each login starts a session (a refresh-token family); its access tokens name it.
 */
export const createTokenService = ({
  users,
  refreshTokens,
  accessTokens,
  sessions,
  admitSession = async () => {},
  identifyAccessToken,
  clock,
  newId,
}: {
  users: Accounts;
  refreshTokens: RefreshTokenStore;
  accessTokens: AccessTokenIssuer;
  sessions: Sessions;
  /** Throws (429) when this user may open no more sessions now: the per-user write limit of sign-ins. */
  admitSession?: (user: { id: string; roles: readonly string[] }) => Promise<void>;
  /** The claims of an access token this service issued, expired or not; null for anything else. */
  identifyAccessToken: (token: string) => { userId: string; tokenId: string; expiresAt: number } | null;
  clock: Clock;
  newId: () => string;
}) => {
  const decoyCheck = createDecoyCheck();

  const issue = async (
    user: { id: string; roles: readonly string[] },
    session: SessionOf,
    client: TokenClient,
  ): Promise<TokenResponse> => {
    const refreshToken = randomBytes(32).toString('base64url');
    const now = clock.now();
    await refreshTokens.save({
      tokenHash: hashRefreshToken(refreshToken),
      familyId: session.familyId,
      userId: user.id,
      issuedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + refreshTokenLifetimeMs).toISOString(),
      sessionStartedAt: session.sessionStartedAt,
      clientAddress: client.address,
      userAgent: client.userAgent,
    });
    return {
      access_token: accessTokens.issue(user, session.familyId),
      token_type: 'Bearer',
      expires_in: accessTokenLifetimeSeconds,
      refresh_token: refreshToken,
    };
  };

  return {
    async passwordGrant(username: string, password: string, client: TokenClient): Promise<TokenResponse> {
      const user = await users.findByEmail(username);
      const valid = user ? await verifyPassword(password, user.passwordHash) : await decoyCheck(password);
      if (!user || !valid || user.disabled) throw invalidGrant('The username or password is wrong.');
      await admitSession(user);
      return issue(user, { familyId: newId(), sessionStartedAt: clock.now().toISOString() }, client);
    },

    async refresh(refreshToken: string, client: TokenClient): Promise<TokenResponse> {
      const record = await refreshTokens.find(hashRefreshToken(refreshToken));
      const now = clock.now().toISOString();
      if (!record || record.familyRevokedAt !== null) throw invalidGrant('The refresh token is invalid.');
      if (record.usedAt !== null) {
        // Someone presents a token that was exchanged already: one of the two holders is not its owner.
        await sessions.end(record.userId, record.familyId);
        throw invalidGrant('The refresh token was used already; its session is revoked.');
      }
      if (record.expiresAt <= now) throw invalidGrant('The refresh token has expired.');
      const user = await users.findById(record.userId);
      if (!user || user.disabled) {
        await sessions.end(record.userId, record.familyId);
        throw invalidGrant('The refresh token is invalid.');
      }
      if (!(await refreshTokens.markUsed(record.tokenHash, now))) {
        // Lost a race against another exchange of the same token: that is a reuse too.
        await sessions.end(record.userId, record.familyId);
        throw invalidGrant('The refresh token was used already; its session is revoked.');
      }
      return issue(user, record, client);
    },

    /**
     * RFC 7009: a refresh token ends its session (its access tokens with it); an access token is refused
     * until it expires. Anything else, this service's or not, is ignored: the answer is the same.
     */
    async revoke(token: string, hint: string | undefined): Promise<void> {
      const asRefreshToken = async () => {
        const record = await refreshTokens.find(hashRefreshToken(token));
        if (!record) return false;
        if (record.familyRevokedAt === null) await sessions.end(record.userId, record.familyId);
        return true;
      };
      const asAccessToken = async () => {
        const claims = identifyAccessToken(token);
        if (!claims) return false;
        await sessions.revokeAccessToken(claims.userId, claims.tokenId, claims.expiresAt);
        return true;
      };
      const [first, second] =
        hint === 'access_token' ? [asAccessToken, asRefreshToken] : [asRefreshToken, asAccessToken];
      if (!(await first())) await second();
    },
  };
};

export type TokenService = ReturnType<typeof createTokenService>;
