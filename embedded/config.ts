import { z } from 'zod';

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

const publicUrls = (publicBaseUrl: string, errorTypeBase: string | undefined) => ({
  publicBaseUrl: withoutTrailingSlash(publicBaseUrl),
  errorTypeBase: withoutTrailingSlash(errorTypeBase ?? `${withoutTrailingSlash(publicBaseUrl)}/problems`),
});

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
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    dataDir: env.DATA_DIR,
    eventLogDurability: env.EVENT_LOG_DURABILITY,
    logLevel: env.LOG_LEVEL,
    ...publicUrls(env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`, env.ERROR_TYPE_BASE),
  }));

export type EmbeddedConfig = z.infer<typeof embeddedConfigSchema>;
