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
import { cachePurgeEnvironment, catalogEnvironment } from '../catalog/catalog-config.ts';
import { authConfig, authEnvironment } from '../infrastructure/auth/auth-config.ts';
import { webhookEnvironment } from '../infrastructure/config/webhook-environment.ts';
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

/**
 * The operations server (GET /health, /ready, /metrics) of another process of the distributed mode, whose
 * metrics the console's health view shows through this one. No credentials in it: those endpoints take
 * none, and an address is never shown to a client, but it should hold nothing secret either.
 */
const operationsServerUrl = z
  .url({ protocol: /^https?$/ })
  .refine((url) => {
    // Not a URL at all: z.url() above says so (zod runs this check too, so it must not throw).
    if (!URL.canParse(url)) return true;
    const { username, password } = new URL(url);
    return username === '' && password === '';
  }, 'must not carry a user name or password')
  .optional();

/** The query API of the distributed mode: every read of the HTTP API (`npm run start:query-api`). */
export const queryApiConfigSchema = z
  .object({
    ...processEnvironment(3002),
    ...httpApiEnvironment,
    ...distributedStoresEnvironment,
    ...personalDataEnvironment,
    ...consistencyTokenEnvironment,
    ...authEnvironment,
    ...catalogEnvironment,
    ...cachePurgeEnvironment,
    ...projectionLagEnvironment,
    ...consistencyEnvironment,
    // Webhook URLs are sealed by the key that seals their secrets: admins read them whole here.
    WEBHOOK_SECRET_KEY: webhookEnvironment.WEBHOOK_SECRET_KEY,
    WEBHOOK_SECRET_KEY_FILE: webhookEnvironment.WEBHOOK_SECRET_KEY_FILE,
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
    CONSOLE_PROJECTIONS_URL: operationsServerUrl.describe(
      "The projections process's operations server (its PORT; http://projections:3003 in docker-compose.yml): " +
        "this process then serves that one's GET /metrics as its own GET /metrics?process=projections, which " +
        "the console's health view reads for the relay's lag. Unset: the console says the lag is not reported here.",
    ),
    CONSOLE_WEBHOOK_DISPATCHER_URL: operationsServerUrl.describe(
      "The webhook dispatcher's operations server (its PORT; http://webhook-dispatcher:3004 in " +
        "docker-compose.yml): this process then serves that one's GET /metrics as its own GET " +
        "/metrics?process=webhook-dispatcher, which the console's health view reads for the delivery counts. " +
        'Unset: the console says they are not reported here.',
    ),
  })
  .superRefine(checkEventLog)
  .superRefine(requirePersonalDataKey)
  .superRefine(requireConsistencyTokenKey)
  .superRefine(requireExactlyOne(['JWT_PRIVATE_KEY_FILE', 'JWT_PRIVATE_KEY'], 'the token signing key'))
  .superRefine(
    requireExactlyOne(
      ['WEBHOOK_SECRET_KEY_FILE', 'WEBHOOK_SECRET_KEY'],
      'the key sealing webhook secrets and URLs',
    ),
  )
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
      auth: authConfig(env, api.publicBaseUrl),
      console: {
        commandApiUrl: env.CONSOLE_COMMAND_API_URL,
        /** The processes whose metrics GET /metrics?process={name} serves, by name. */
        processes: {
          ...(env.CONSOLE_PROJECTIONS_URL === undefined ? {} : { projections: env.CONSOLE_PROJECTIONS_URL }),
          ...(env.CONSOLE_WEBHOOK_DISPATCHER_URL === undefined
            ? {}
            : { 'webhook-dispatcher': env.CONSOLE_WEBHOOK_DISPATCHER_URL }),
        } as Record<string, string>,
      },
      personalData: personalDataConfig(env),
      consistencyTokens: consistencyTokenConfig(env),
      webhooks: {
        secretKey: env.WEBHOOK_SECRET_KEY ?? null,
        secretKeyFile: env.WEBHOOK_SECRET_KEY_FILE ?? null,
      },
    };
  })
  .describe(
    'The query API of the distributed mode (npm run start:query-api): every read of the HTTP API, from ' +
      'the MongoDB read models and the event log.',
  );

export type QueryApiConfig = z.infer<typeof queryApiConfigSchema>;
