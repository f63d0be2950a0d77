import { z } from 'zod';
import { catalogEnvironment } from '../catalog/catalog-config.ts';
import { identityConfig, identityEnvironment } from '../identity/identity-config.ts';
import { webhookConfig, webhookEnvironment } from '../webhook-dispatcher/webhook-config.ts';

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** The embedded default's environment. Every variable has a default, so `npm start` needs none. */
export const embeddedConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Loopback by default: the embedded default is a single-machine service; containers set 0.0.0.0. */
    HOST: z.string().min(1).default('127.0.0.1'),
    DATA_DIR: z.string().min(1).default('./data'),
    /** What an acknowledged write survives: a killed process (default), or also a power cut (slower). */
    EVENT_LOG_DURABILITY: z.enum(['process-crash', 'power-loss']).default('process-crash'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** The service's public address ({base_url} of the spec); default http://localhost:PORT. */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Prefix of problem `type` URIs ({error_type_base} of the spec); default PUBLIC_BASE_URL/problems. */
    ERROR_TYPE_BASE: z.url().optional(),
    /** Create one demo user per role, with random passwords shown once, when there is no user yet. */
    SEED_DEMO_USERS: z.enum(['true', 'false']).default('true'),
    /** Import the demo catalogue (60 products, 6 categories) when the catalogue is empty. */
    SEED_DEMO_CATALOG: z.enum(['true', 'false']).default('true'),
    /** How long a query sent with a Consistency-Token waits for the read models before answering 503. */
    CONSISTENCY_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
    ...identityEnvironment,
    ...catalogEnvironment,
    ...webhookEnvironment,
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
      seedDemoUsers: env.SEED_DEMO_USERS === 'true',
      consistencyTimeoutMs: env.CONSISTENCY_TIMEOUT_MS,
      catalog: {
        seedDemo: env.SEED_DEMO_CATALOG === 'true',
        currency: env.CATALOG_CURRENCY,
        refreshIntervalMs: env.CATALOG_REFRESH_INTERVAL_MS,
      },
      identity: identityConfig(env, publicBaseUrl),
      webhooks: webhookConfig(env),
    };
  });

export type EmbeddedConfig = z.infer<typeof embeddedConfigSchema>;
