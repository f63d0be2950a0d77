import { z } from 'zod';

/** WEBHOOK_RETRY_SCHEDULE's default: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, then dead-lettered. */
export const defaultRetryScheduleMs: readonly number[] = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000,
];

const retrySchedule = z
  .string()
  .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'must be milliseconds, comma-separated, such as 5000,30000,120000')
  .transform((value) => value.split(',').map((step) => Number(step.trim())));

const secretKey = z
  .string()
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be the base64 of 32 random bytes')
  .transform((value) => Buffer.from(value, 'base64'));

/** Environment variables of webhook management and delivery, shared by every process that needs them. */
export const webhookEnvironment = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      'Lifts the refusal of loopback, private and metadata addresses: for tests and local demos only.',
    ),
  WEBHOOK_RETRY_SCHEDULE: retrySchedule
    .optional()
    .describe(
      'Waits before each retry, in ms, comma-separated; after the last, a delivery is dead-lettered ' +
        '(default 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h).',
    ),
  WEBHOOK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(10_000)
    .describe('A delivery succeeds with a 2xx within this many ms.'),
  WEBHOOK_SECRET_KEY: secretKey
    .optional()
    .describe(
      'Seals webhook secrets at rest: base64 of 32 bytes (a secret: prefer WEBHOOK_SECRET_KEY_FILE). ' +
        'Without it the embedded default keeps one in DATA_DIR/keys.',
    ),
  WEBHOOK_SECRET_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('A file holding WEBHOOK_SECRET_KEY (as `npm run admin -- keys:init` writes it).'),
  WEBHOOK_DNS_SERVERS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((server) => server.trim())
        .filter(Boolean),
    )
    .optional()
    .describe(
      'DNS servers for webhook hosts (host:port, comma-separated); the system resolver (getaddrinfo, as ' +
        'every other program on the host) when unset or empty.',
    ),
};

type WebhookEnvironment = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' | 'false';
  WEBHOOK_RETRY_SCHEDULE?: number[] | undefined;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_SECRET_KEY?: Buffer | undefined;
  WEBHOOK_SECRET_KEY_FILE?: string | undefined;
  WEBHOOK_DNS_SERVERS?: string[] | undefined;
};

export const webhookConfig = (env: WebhookEnvironment) => ({
  allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
  retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE ?? defaultRetryScheduleMs,
  timeoutMs: env.WEBHOOK_TIMEOUT_MS,
  secretKey: env.WEBHOOK_SECRET_KEY ?? null,
  secretKeyFile: env.WEBHOOK_SECRET_KEY_FILE ?? null,
  /** null: the system resolver. An empty list would be a resolver that can resolve nothing. */
  dnsServers: env.WEBHOOK_DNS_SERVERS?.length ? env.WEBHOOK_DNS_SERVERS : null,
});
