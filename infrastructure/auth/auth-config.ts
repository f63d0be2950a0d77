import { z } from 'zod';
import { writeLimitEnvironment, writeLimitsConfig } from './write-limits.ts';

/** Environment variables of signing in, shared by every process that issues or verifies tokens. */
export const authEnvironment = {
  JWT_PRIVATE_KEY: z
    .string()
    .min(1)
    .optional()
    .describe('The RS256 key that signs access tokens, as PEM text (a secret: prefer JWT_PRIVATE_KEY_FILE).'),
  JWT_PRIVATE_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('Path of a PEM file holding the RS256 key that signs access tokens.'),
  JWT_ISSUER: z.string().min(1).optional().describe('The `iss` of access tokens; default PUBLIC_BASE_URL.'),
  JWT_AUDIENCE: z.string().min(1).default('order-service').describe('The `aud` of access tokens.'),
  AUTH_REALM: z
    .string()
    .regex(/^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/, 'printable ASCII without quotes or backslashes')
    .default('order-service')
    .describe('The realm of WWW-Authenticate challenges.'),
  AUTH_RATE_LIMIT_PER_ADDRESS: z.coerce
    .number()
    .int()
    .positive()
    .default(30)
    .describe('Token-endpoint requests per client address per window.'),
  AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS: z.coerce
    .number()
    .int()
    .positive()
    .default(10)
    .describe(
      'Wrong passwords for one account from one client address per window; beyond, that address waits for ' +
        'the end of its window (for that account only).',
    ),
  AUTH_FAILED_LOGINS_PER_ACCOUNT: z.coerce
    .number()
    .int()
    .positive()
    .default(100)
    .describe(
      'Wrong passwords for one account from all addresses per window; beyond, each address that has failed ' +
        'against the account waits after one failure. An address that has not failed is never refused.',
    ),
  AUTH_RATE_LIMIT_PER_USERNAME: z
    .undefined({
      error:
        'was removed (it let anyone lock an account out from many addresses): set ' +
        'AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS (and AUTH_FAILED_LOGINS_PER_ACCOUNT) instead',
    })
    .optional()
    .describe(
      'Removed: refused at start. Its replacements are AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS and ' +
        'AUTH_FAILED_LOGINS_PER_ACCOUNT.',
    ),
  AUTH_RATE_LIMIT_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe('The rate-limit window, in seconds.'),
  ...writeLimitEnvironment,
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value) =>
      value === 'true' ? true : value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value,
    )
    .describe(
      "Express's `trust proxy` for X-Forwarded-For and X-Forwarded-Proto (HSTS): false, true, a hop count, or addresses/CIDRs.",
    ),
};

type AuthEnvironment = {
  JWT_PRIVATE_KEY?: string | undefined;
  JWT_PRIVATE_KEY_FILE?: string | undefined;
  JWT_ISSUER?: string | undefined;
  JWT_AUDIENCE: string;
  AUTH_REALM: string;
  AUTH_RATE_LIMIT_PER_ADDRESS: number;
  AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS: number;
  AUTH_FAILED_LOGINS_PER_ACCOUNT: number;
  AUTH_RATE_LIMIT_WINDOW_SECONDS: number;
  TRUST_PROXY: boolean | number | string;
} & Parameters<typeof writeLimitsConfig>[0];

export const authConfig = (env: AuthEnvironment, publicBaseUrl: string) => ({
  signingKeyPem: env.JWT_PRIVATE_KEY,
  signingKeyFile: env.JWT_PRIVATE_KEY_FILE,
  issuer: env.JWT_ISSUER ?? publicBaseUrl,
  audience: env.JWT_AUDIENCE,
  realm: env.AUTH_REALM,
  rateLimits: {
    perAddress: env.AUTH_RATE_LIMIT_PER_ADDRESS,
    failuresPerAccountAndAddress: env.AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS,
    failuresPerAccount: env.AUTH_FAILED_LOGINS_PER_ACCOUNT,
    windowSeconds: env.AUTH_RATE_LIMIT_WINDOW_SECONDS,
  },
  writeLimits: writeLimitsConfig(env),
  trustProxy: env.TRUST_PROXY,
});

export type AuthConfig = ReturnType<typeof authConfig>;
