import { z } from 'zod';
import {
  consistencyTokenConfig,
  consistencyTokenEnvironment,
} from '../infrastructure/config/consistency-token-environment.ts';
import { cachePurgeEnvironment, catalogEnvironment } from '../catalog/catalog-config.ts';
import { authConfig, authEnvironment } from '../infrastructure/auth/auth-config.ts';
import {
  consistencyEnvironment,
  demoSeedEnvironment,
  loadSheddingConfig,
  loadSheddingEnvironment,
  logLevel,
  projectionBatchEnvironment,
  publicAddressEnvironment,
  projectionLagEnvironment,
  readinessEnvironment,
} from '../infrastructure/config/service-environment.ts';
import { webhookConfig, webhookEnvironment } from '../infrastructure/config/webhook-environment.ts';
import {
  personalDataConfig,
  personalDataEnvironment,
} from '../infrastructure/config/personal-data-environment.ts';

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** The embedded default's environment. Every variable has a default, so `npm start` needs none. */
export const embeddedConfigSchema = z
  .object({
    PORT: z.coerce
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(3000)
      .describe('HTTP port to listen on; 0 picks a free one.'),
    HOST: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe('Interface to listen on: loopback, as a single-machine service; containers set 0.0.0.0.'),
    DATA_DIR: z
      .string()
      .min(1)
      .default('./data')
      .describe('Where the embedded stores keep their files (event log, read store, keys).'),
    EVENT_LOG_DURABILITY: z
      .enum(['process-crash', 'power-loss'])
      .default('process-crash')
      .describe('What an acknowledged write survives: a killed process, or also a power cut (slower).'),
    LOG_LEVEL: logLevel,
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe("The service's public address (the server of /openapi.json); default http://localhost:PORT."),
    ERROR_TYPE_BASE: publicAddressEnvironment.ERROR_TYPE_BASE,
    DOCS_URL: publicAddressEnvironment.DOCS_URL,
    ...demoSeedEnvironment,
    ...consistencyEnvironment,
    ...readinessEnvironment,
    ...loadSheddingEnvironment,
    ...projectionLagEnvironment,
    // Larger than the distributed mode's 2 ms: here every follower shares the one core that also answers
    // the requests, and a transaction fewer is worth more.
    ...projectionBatchEnvironment(10),
    ...authEnvironment,
    ...catalogEnvironment,
    ...cachePurgeEnvironment,
    ...webhookEnvironment,
    ...personalDataEnvironment,
    ...consistencyTokenEnvironment,
  })
  .transform((env) => {
    const publicBaseUrl = withoutTrailingSlash(env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`);
    return {
      port: env.PORT,
      host: env.HOST,
      dataDir: env.DATA_DIR,
      eventLogDurability: env.EVENT_LOG_DURABILITY,
      logLevel: env.LOG_LEVEL,
      publicBaseUrl,
      errorTypeBase: withoutTrailingSlash(env.ERROR_TYPE_BASE ?? `${publicBaseUrl}/problems`),
      docsUrl: withoutTrailingSlash(env.DOCS_URL ?? `${publicBaseUrl}/docs`),
      seedDemoUsers: env.SEED_DEMO_USERS === 'true',
      consistencyTimeoutMs: env.CONSISTENCY_TIMEOUT_MS,
      projectionBatchIntervalMs: env.PROJECTION_BATCH_INTERVAL_MS,
      http: loadSheddingConfig(env),
      readiness: {
        checkTimeoutMs: env.READY_CHECK_TIMEOUT_MS,
        maxProjectionLag: env.READY_MAX_PROJECTION_LAG,
      },
      catalog: {
        seedDemo: env.SEED_DEMO_CATALOG === 'true',
        currency: env.CATALOG_CURRENCY,
        refreshIntervalMs: env.CATALOG_REFRESH_INTERVAL_MS,
        purgeUrls: env.CACHE_PURGE_URLS ?? [],
      },
      auth: authConfig(env, publicBaseUrl),
      webhooks: webhookConfig(env),
      personalData: personalDataConfig(env),
      consistencyTokens: consistencyTokenConfig(env),
    };
  })
  .describe(
    'The embedded default (npm start): every service of the project in one process, on one port, over ' +
      'node:sqlite files in DATA_DIR. Every variable has a default.',
  );

export type EmbeddedConfig = z.infer<typeof embeddedConfigSchema>;
