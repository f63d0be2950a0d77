import { z } from 'zod';
import {
  consistencyTokenConfig,
  consistencyTokenEnvironment,
  requireConsistencyTokenKey,
} from '../infrastructure/config/consistency-token-environment.ts';
import {
  personalDataConfig,
  personalDataEnvironment,
  requirePersonalDataKey,
} from '../infrastructure/config/personal-data-environment.ts';
import { catalogEnvironment } from '../catalog/catalog-config.ts';
import { authConfig, authEnvironment } from '../infrastructure/auth/auth-config.ts';
import {
  checkEventLog,
  demoSeedEnvironment,
  distributedStoresConfig,
  distributedStoresEnvironment,
  httpApiConfig,
  httpApiEnvironment,
  processConfig,
  processEnvironment,
  requireExactlyOne,
} from '../infrastructure/config/service-environment.ts';
import { webhookConfig, webhookEnvironment } from '../infrastructure/config/webhook-environment.ts';

/** The command API of the distributed mode: every write of the HTTP API (`npm run start:command-api`). */
export const commandApiConfigSchema = z
  .object({
    ...processEnvironment(3001),
    ...httpApiEnvironment,
    ...distributedStoresEnvironment,
    ...personalDataEnvironment,
    ...consistencyTokenEnvironment,
    ...authEnvironment,
    ...catalogEnvironment,
    ...webhookEnvironment,
    ...demoSeedEnvironment,
  })
  .superRefine(checkEventLog)
  .superRefine(requirePersonalDataKey)
  .superRefine(requireConsistencyTokenKey)
  .superRefine(requireExactlyOne(['JWT_PRIVATE_KEY_FILE', 'JWT_PRIVATE_KEY'], 'the token signing key'))
  .superRefine(
    requireExactlyOne(['WEBHOOK_SECRET_KEY_FILE', 'WEBHOOK_SECRET_KEY'], 'the key sealing webhook secrets'),
  )
  .transform((env) => {
    const api = httpApiConfig(env);
    return {
      ...processConfig(env),
      ...api,
      ...distributedStoresConfig(env),
      seedDemoUsers: env.SEED_DEMO_USERS === 'true',
      catalog: {
        seedDemo: env.SEED_DEMO_CATALOG === 'true',
        currency: env.CATALOG_CURRENCY,
        refreshIntervalMs: env.CATALOG_REFRESH_INTERVAL_MS,
      },
      auth: authConfig(env, api.publicBaseUrl),
      webhooks: webhookConfig(env),
      personalData: personalDataConfig(env),
      consistencyTokens: consistencyTokenConfig(env),
    };
  })
  .describe(
    'The command API of the distributed mode (npm run start:command-api): every write of the HTTP API, ' +
      'on the event log and MongoDB.',
  );

export type CommandApiConfig = z.infer<typeof commandApiConfigSchema>;
