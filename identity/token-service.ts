import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../infrastructure/clock.ts';
import { UnauthorizedError } from '../infrastructure/http/api-error.ts';
import { accessTokenLifetimeSeconds, type AccessTokenIssuer } from './access-tokens.ts';
import { createDecoyCheck, verifyPassword } from './passwords.ts';
import type { RefreshTokenStore } from './refresh-tokens.ts';
import type { Role } from './roles.ts';
import type { UserStore } from './users.ts';

/** The body of a successful token response (decisions.md, "Auth endpoints"). */
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

const rejected = (detail: string) => new UnauthorizedError(detail, { invalidToken: true });

/** The password grant and the refresh-token rotation, over the user and refresh-token stores. */
export const createTokenService = ({
  users,
  refreshTokens,
  accessTokens,
  clock,
  newId,
}: {
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  accessTokens: AccessTokenIssuer;
  clock: Clock;
  newId: () => string;
}) => {
  const decoyCheck = createDecoyCheck();

  const issue = async (user: { id: string; roles: Role[] }, familyId: string): Promise<TokenResponse> => {
    const refreshToken = randomBytes(32).toString('base64url');
    const now = clock.now();
    await refreshTokens.save({
      tokenHash: hashRefreshToken(refreshToken),
      familyId,
      userId: user.id,
      issuedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + refreshTokenLifetimeMs).toISOString(),
    });
    return {
      access_token: accessTokens.issue(user),
      token_type: 'Bearer',
      expires_in: accessTokenLifetimeSeconds,
      refresh_token: refreshToken,
    };
  };

  return {
    async passwordGrant(username: string, password: string): Promise<TokenResponse> {
      const user = await users.findByEmail(username);
      const valid = user ? await verifyPassword(password, user.passwordHash) : await decoyCheck(password);
      if (!user || !valid || user.disabled) throw rejected('The username or password is wrong.');
      return issue(user, newId());
    },

    async refresh(refreshToken: string): Promise<TokenResponse> {
      const record = await refreshTokens.find(hashRefreshToken(refreshToken));
      const now = clock.now().toISOString();
      if (!record || record.familyRevokedAt !== null) throw rejected('The refresh token is invalid.');
      if (record.usedAt !== null) {
        // Someone presents a token that was exchanged already: one of the two holders is not its owner.
        await refreshTokens.revokeFamily(record.familyId, now);
        throw rejected('The refresh token was used already; its session is revoked.');
      }
      if (record.expiresAt <= now) throw rejected('The refresh token has expired.');
      const user = await users.findById(record.userId);
      if (!user || user.disabled) {
        await refreshTokens.revokeFamily(record.familyId, now);
        throw rejected('The refresh token is invalid.');
      }
      if (!(await refreshTokens.markUsed(record.tokenHash, now))) {
        // Lost a race against another exchange of the same token: that is a reuse too.
        await refreshTokens.revokeFamily(record.familyId, now);
        throw rejected('The refresh token was used already; its session is revoked.');
      }
      return issue(user, record.familyId);
    },
  };
};

export type TokenService = ReturnType<typeof createTokenService>;
