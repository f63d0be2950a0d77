import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Clock } from '../clock.ts';
import type { HttpModule } from '../http/http-module.ts';
import { createAccessTokenIssuer, createAccessTokenVerifier } from './access-tokens.ts';
import type { Accounts } from './accounts.ts';
import type { AuthConfig } from './auth-config.ts';
import { createAuthenticator } from './authenticator.ts';
import { createLoginRateLimiter } from './login-rate-limiter.ts';
import { tokenEndpointProblems } from './oauth-errors.ts';
import { createPasswordChecks, defaultPasswordCheckLimits } from './password-checks.ts';
import type { RefreshTokenStore } from './refresh-tokens.ts';
import { sessionRoutes, type AuthorizeSessions } from './session-routes.ts';
import { createSessions } from './sessions.ts';
import { loadOrCreateSigningKey, signingKeyFromPem, type SigningKey } from './signing-keys.ts';
import { createTokenService } from './token-service.ts';
import { tokenRoutes } from './token-routes.ts';
import { createWriteLimits } from './write-limits.ts';

/**
 * The configured signing key, or, where none is configured, the one kept in `generatedKeyPath` (the embedded
 * default; the distributed mode's configuration requires one, so that every process shares it).
 */
export const resolveSigningKey = (config: AuthConfig, generatedKeyPath: string | null): SigningKey => {
  if (config.signingKeyPem) return signingKeyFromPem(config.signingKeyPem);
  if (config.signingKeyFile) return signingKeyFromPem(readFileSync(config.signingKeyFile, 'utf8'));
  if (generatedKeyPath === null) throw new Error('no token signing key is configured');
  return loadOrCreateSigningKey(generatedKeyPath);
};

/**
 * Signing in, as every HTTP process serves it: the token endpoints (password and refresh grants,
 * revocation, the public keys), the caller's sessions, and the authenticator every feature's routes put
 * in front. Accounts and roles are the identity feature's; this knows roles by name only.
 */
export const createAuthModule = ({
  accounts,
  refreshTokens,
  signingKey,
  roles,
  staffRoles,
  authorize,
  config,
  clock,
}: {
  accounts: Accounts;
  refreshTokens: RefreshTokenStore;
  signingKey: SigningKey;
  /** The roles tokens may carry. */
  roles: readonly [string, ...string[]];
  /** The roles whose holders count against the staff write limits rather than the customers'. */
  staffRoles: readonly string[];
  /** The permission table's check, for the routes of one's own sessions. */
  authorize: AuthorizeSessions;
  config: AuthConfig;
  clock: Clock;
}) => {
  const audience = { issuer: config.issuer, audience: config.audience };
  const verifier = createAccessTokenVerifier({
    ...audience,
    clock,
    roles,
    publicKeyFor: (kid) => (kid === signingKey.kid ? signingKey.publicKey : undefined),
  });
  const authenticator = createAuthenticator({ verifier, users: accounts, clock });
  const writeLimits = createWriteLimits({ limits: config.writeLimits, staffRoles });
  const sessions = createSessions({ users: accounts, refreshTokens, authenticator, clock });
  const tokens = createTokenService({
    users: accounts,
    refreshTokens,
    accessTokens: createAccessTokenIssuer({ ...audience, signingKey, clock, newId: randomUUID }),
    sessions,
    admitSession: (user) => writeLimits.count('sessions', user),
    identifyAccessToken: (token) => verifier.identify(token),
    clock,
    newId: randomUUID,
  });
  const module: HttpModule = {
    routers: [
      tokenRoutes({
        tokens,
        limiter: createLoginRateLimiter(config.rateLimits),
        passwordChecks: createPasswordChecks(defaultPasswordCheckLimits),
        signingKey,
      }),
      sessionRoutes({ sessions, authenticator, authorize }),
    ],
    paths: ['/auth', '/users/me/sessions', '/.well-known'],
    problemDialects: [tokenEndpointProblems],
    // Tokens and one's sessions: never for a shared cache.
    cachePolicy: { privatePaths: ['/auth/', '/users/me/sessions'] },
  };
  return { authenticator, module, writeLimits };
};
