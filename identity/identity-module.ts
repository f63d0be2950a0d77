import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Clock } from '../infrastructure/clock.ts';
import type { HttpModule } from '../infrastructure/http/http-module.ts';
import { createAccessTokenIssuer, createAccessTokenVerifier } from './access-tokens.ts';
import { createAuthenticator } from './authenticator.ts';
import type { IdentityConfig } from './identity-config.ts';
import { identityRoutes } from './identity-routes.ts';
import { createLoginRateLimiter } from './login-rate-limiter.ts';
import type { RefreshTokenStore } from './refresh-tokens.ts';
import { loadOrCreateSigningKey, signingKeyFromPem, type SigningKey } from './signing-keys.ts';
import { createPasswordChecks, defaultPasswordCheckLimits } from './password-checks.ts';
import { sessionRoutes } from './session-routes.ts';
import { createSessions } from './sessions.ts';
import { createUserErasure } from './erase-user.ts';
import { erasureRoutes } from './erasure-routes.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import type { PersonalDataKeyring } from '../infrastructure/personal-data/keyring.ts';
import { createTokenService } from './token-service.ts';
import { identityErrors, userRoutes } from './user-routes.ts';
import type { UserStore } from './users.ts';

/**
 * The configured signing key, or, where none is configured, the one kept in `generatedKeyPath` (the embedded
 * default; the distributed mode's configuration requires one, so that every process shares it).
 */
export const resolveSigningKey = (config: IdentityConfig, generatedKeyPath: string | null): SigningKey => {
  if (config.signingKeyPem) return signingKeyFromPem(config.signingKeyPem);
  if (config.signingKeyFile) return signingKeyFromPem(readFileSync(config.signingKeyFile, 'utf8'));
  if (generatedKeyPath === null) throw new Error('no token signing key is configured');
  return loadOrCreateSigningKey(generatedKeyPath);
};

/** Everything identity gives a process that issues tokens: its routes, its authenticator, its error mapping. */
export const createIdentityModule = ({
  users,
  refreshTokens,
  signingKey,
  config,
  clock,
  personalData,
}: {
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  signingKey: SigningKey;
  config: IdentityConfig;
  clock: Clock;
  /**
   * The keyring (stored addresses are sealed); where the process takes writes, the log that
   * DELETE /users/{id} (erasure) appends to. A process without it (the query API) does not serve erasure.
   */
  personalData: {
    keyring: Pick<PersonalDataKeyring, 'erase' | 'sealFields' | 'reveal'>;
    eventStore?: EventStore;
    flushDeleted?: () => Promise<void>;
  };
}) => {
  const audience = { issuer: config.issuer, audience: config.audience };
  const verifier = createAccessTokenVerifier({
    ...audience,
    clock,
    publicKeyFor: (kid) => (kid === signingKey.kid ? signingKey.publicKey : undefined),
  });
  const authenticator = createAuthenticator({ verifier, users, clock });
  const sessions = createSessions({ users, refreshTokens, authenticator, clock });
  const tokens = createTokenService({
    users,
    refreshTokens,
    accessTokens: createAccessTokenIssuer({ ...audience, signingKey, clock, newId: randomUUID }),
    sessions,
    identifyAccessToken: (token) => verifier.identify(token),
    clock,
    newId: randomUUID,
  });
  const limiter = createLoginRateLimiter(config.rateLimits);
  return {
    authenticator,
    routers: [
      identityRoutes({
        tokens,
        limiter,
        passwordChecks: createPasswordChecks(defaultPasswordCheckLimits),
        signingKey,
      }),
      userRoutes({ users, authenticator, clock, personalData: personalData.keyring }),
      sessionRoutes({ sessions, authenticator }),
      ...(personalData.eventStore
        ? [
            erasureRoutes({
              erasure: createUserErasure({
                users,
                refreshTokens,
                clock,
                authenticator,
                keyring: personalData.keyring,
                eventStore: personalData.eventStore,
                ...(personalData.flushDeleted ? { flushDeleted: personalData.flushDeleted } : {}),
              }),
              authenticator,
            }),
          ]
        : []),
    ],
    paths: ['/auth', '/users', '/.well-known'],
    errorMappers: [identityErrors],
    // Tokens and the caller's own account: never for a shared cache.
    cachePolicy: { privatePaths: ['/auth/', '/users/me'] },
  } satisfies HttpModule & { authenticator: unknown };
};
