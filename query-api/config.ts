import { z } from 'zod';
import {
  personalDataConfig,
  personalDataEnvironment,
  requirePersonalDataKey,
} from '../infrastructure/config/personal-data-environment.ts';
import { cachePurgeEnvironment, catalogEnvironment } from '../catalog/catalog-config.ts';
import { identityConfig, identityEnvironment } from '../identity/identity-config.ts';
import {
  checkEventLog,
  consistencyEnvironment,
  distributedStoresConfig,
  distributedStoresEnvironment,
  httpApiConfig,
  httpApiEnvironment,
  processConfig,
  processEnvironment,
  projectionLagEnvironment,
  requireExactlyOne,
} from '../infrastructure/config/service-environment.ts';

/** The query API of the distributed mode: every read of the HTTP API (`npm run start:query-api`). */
export const queryApiConfigSchema = z
  .object({
    ...processEnvironment(3002),
    ...httpApiEnvironment,
    ...distributedStoresEnvironment,
    ...personalDataEnvironment,
    ...identityEnvironment,
    ...catalogEnvironment,
    ...cachePurgeEnvironment,
    ...projectionLagEnvironment,
    ...consistencyEnvironment,
    CONSISTENCY_POLL_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(5)
      .describe("How often a query waiting on a Consistency-Token reads the projections' checkpoints."),
    CONSOLE_COMMAND_API_URL: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        'Where the console at /console sends its commands (confirm, ship, retry...) when it is opened on this ' +
          'query API directly: the command API, whose public HTTP API this process calls for it. Unset: the ' +
          'console sends them to its own origin, for the method router in front to route.',
      ),
  })
  .superRefine(checkEventLog)
  .superRefine(requirePersonalDataKey)
  .superRefine(requireExactlyOne(['JWT_PRIVATE_KEY_FILE', 'JWT_PRIVATE_KEY'], 'the token signing key'))
  .transform((env) => {
    const api = httpApiConfig(env);
    const base = processConfig(env);
    return {
      ...base,
      readiness: { ...base.readiness, maxProjectionLag: env.READY_MAX_PROJECTION_LAG },
      ...api,
      ...distributedStoresConfig(env),
      consistencyTimeoutMs: env.CONSISTENCY_TIMEOUT_MS,
      consistencyPollIntervalMs: env.CONSISTENCY_POLL_INTERVAL_MS,
      catalog: {
        currency: env.CATALOG_CURRENCY,
        refreshIntervalMs: env.CATALOG_REFRESH_INTERVAL_MS,
        purgeUrls: env.CACHE_PURGE_URLS ?? [],
      },
      identity: identityConfig(env, api.publicBaseUrl),
      console: { commandApiUrl: env.CONSOLE_COMMAND_API_URL },
      personalData: personalDataConfig(env),
    };
  })
  .describe(
    'The query API of the distributed mode (npm run start:query-api): every read of the HTTP API, from ' +
      'the MongoDB read models and the event log.',
  );

export type QueryApiConfig = z.infer<typeof queryApiConfigSchema>;
