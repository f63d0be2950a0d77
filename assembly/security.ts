import { join } from 'node:path';
import type { Logger } from 'pino';
import { roles, staffRoles } from '../domain/identity/roles.ts';
import type { UserStore } from '../identity/users.ts';
import type { AuthConfig } from '../infrastructure/auth/auth-config.ts';
import { createAuthModule, resolveSigningKey } from '../infrastructure/auth/auth-module.ts';
import type { AuthorizeSessions } from '../infrastructure/auth/session-routes.ts';
import type { Clock } from '../infrastructure/clock.ts';
import {
  resolveConsistencyTokenKey,
  type ConsistencyTokenConfig,
} from '../infrastructure/config/consistency-token-environment.ts';
import type { PersonalDataConfig } from '../infrastructure/config/personal-data-environment.ts';
import { createSecretCipher, resolveSecretKey } from '../infrastructure/crypto/secret-cipher.ts';
import { createConsistencyTokens } from '../infrastructure/http/consistency-tokens.ts';
import { openKeyring } from '../infrastructure/personal-data/open-keyring.ts';
import type { ReadStores } from './read-stores.ts';

export type SecurityConfig = {
  auth: AuthConfig;
  personalData: PersonalDataConfig;
  consistencyTokens: ConsistencyTokenConfig;
  webhooks: { secretKey: Buffer | null; secretKeyFile: string | null };
};

/**
 * The keys and what is built on them, as every HTTP process needs them: the personal-data keyring, the
 * Consistency-Token signer, the webhook secret cipher and the token endpoints with their authenticator.
 * Keys come from the configuration; `keyDir` is where the embedded default keeps the ones it generated
 * (null in the distributed mode: every key is configured, from `npm run keys:init`).
 */
export const openSecurity = async ({
  config,
  stores,
  users,
  keyDir,
  authorize,
  clock,
  logger,
}: {
  config: SecurityConfig;
  stores: Pick<ReadStores, 'dataKeys' | 'refreshTokens'>;
  users: UserStore;
  keyDir: string | null;
  authorize: AuthorizeSessions;
  clock: Clock;
  logger: Logger;
}) => {
  const generated = (name: string) => (keyDir === null ? null : join(keyDir, name));
  const keyring = openKeyring({
    store: stores.dataKeys(),
    config: config.personalData,
    generatedKeyPath: generated('personal-data-key'),
    logger,
  });
  const auth = createAuthModule({
    accounts: users,
    refreshTokens: await stores.refreshTokens(),
    signingKey: resolveSigningKey(config.auth, generated('jwt-signing-key.pem')),
    roles,
    staffRoles,
    authorize,
    config: config.auth,
    clock,
  });
  return {
    keyring,
    auth,
    consistencyTokens: createConsistencyTokens(
      resolveConsistencyTokenKey(config.consistencyTokens, generated('consistency-token-key')),
    ),
    webhookCipher: createSecretCipher(resolveSecretKey(config.webhooks, generated('webhook-secret-key'))),
  };
};
