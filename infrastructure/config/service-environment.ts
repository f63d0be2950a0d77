import { z } from 'zod';

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** Variables every process of the distributed mode reads: where it listens and how much it logs. */
export const processEnvironment = (defaultPort: number) => ({
  PORT: z.coerce.number().int().min(0).max(65535).default(defaultPort),
  /** Loopback by default; containers set 0.0.0.0. */
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/**
 * The public address and problem type base of an HTTP API ({base_url} and {error_type_base} of the spec).
 * Required: both APIs of the distributed mode must agree on it (it is also the tokens' default issuer).
 */
export const publicAddressEnvironment = {
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }),
  ERROR_TYPE_BASE: z.url().optional(),
};

export const publicAddress = (env: { PUBLIC_BASE_URL: string; ERROR_TYPE_BASE?: string | undefined }) => {
  const publicBaseUrl = withoutTrailingSlash(env.PUBLIC_BASE_URL);
  return {
    publicBaseUrl,
    errorTypeBase: withoutTrailingSlash(env.ERROR_TYPE_BASE ?? `${publicBaseUrl}/problems`),
  };
};

/**
 * The event log: EventStoreDB, or where none is reachable, one node:sqlite log file that every process
 * on the host opens (SQLite serialises their appends; each process polls it for the others' events).
 */
export const eventLogEnvironment = {
  EVENTSTORE_URL: z.string().min(1).optional(),
  EVENT_LOG_FILE: z.string().min(1).optional(),
  /** How often a process following a shared log file looks for events another process appended. */
  EVENT_LOG_POLL_INTERVAL_MS: z.coerce.number().int().min(1).max(10_000).default(10),
};

export type EventLogConfig =
  { kind: 'eventstoredb'; url: string } | { kind: 'sqlite-file'; path: string; pollIntervalMs: number };

/**
 * Adds an issue, on the first variable, unless exactly one of `variables` is set: for alternatives such as
 * EVENTSTORE_URL and EVENT_LOG_FILE, or a secret given inline or as a file.
 */
export const requireExactlyOne =
  (variables: readonly string[], what: string) =>
  (env: Record<string, unknown>, context: z.core.$RefinementCtx): void => {
    const set = variables.filter((variable) => env[variable] !== undefined);
    if (set.length === 1) return;
    context.addIssue({
      code: 'custom',
      path: [variables[0]!],
      message: `set exactly one of ${variables.join(' and ')} (${what})${set.length > 1 ? `; ${set.join(' and ')} are both set` : ''}`,
    });
  };

export const checkEventLog = requireExactlyOne(
  ['EVENTSTORE_URL', 'EVENT_LOG_FILE'],
  'EventStoreDB, or a node:sqlite log file shared on this host',
);

export const eventLogConfig = (env: {
  EVENTSTORE_URL?: string | undefined;
  EVENT_LOG_FILE?: string | undefined;
  EVENT_LOG_POLL_INTERVAL_MS: number;
}): EventLogConfig =>
  env.EVENTSTORE_URL !== undefined
    ? { kind: 'eventstoredb', url: env.EVENTSTORE_URL }
    : { kind: 'sqlite-file', path: env.EVENT_LOG_FILE!, pollIntervalMs: env.EVENT_LOG_POLL_INTERVAL_MS };

export const mongoEnvironment = {
  MONGODB_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL'),
  MONGODB_DATABASE: z.string().min(1).default('order_service'),
};

export const kafkaEnvironment = {
  KAFKA_BROKERS: z
    .string()
    .regex(/^\s*[^\s,]+:\d+(\s*,\s*[^\s,]+:\d+)*\s*$/, 'must be host:port, comma-separated')
    .transform((value) => value.split(',').map((broker) => broker.trim())),
  KAFKA_CLIENT_ID: z.string().min(1).optional(),
  /** Partitions of the topics the service creates when they are missing. */
  KAFKA_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(6),
  KAFKA_TOPIC_ORDER_EVENTS: z.string().min(1).default('order-events'),
  KAFKA_TOPIC_WEBHOOK_REQUESTS: z.string().min(1).default('webhook-requests'),
  /** Where the dispatcher puts messages it cannot read, instead of blocking their partition. */
  KAFKA_TOPIC_DEAD_LETTER: z.string().min(1).default('webhook-dispatcher.dead-letter'),
};

export const kafkaConfig = (
  env: {
    KAFKA_BROKERS: string[];
    KAFKA_CLIENT_ID?: string | undefined;
    KAFKA_PARTITIONS: number;
    KAFKA_TOPIC_ORDER_EVENTS: string;
    KAFKA_TOPIC_WEBHOOK_REQUESTS: string;
    KAFKA_TOPIC_DEAD_LETTER: string;
  },
  defaultClientId: string,
) => ({
  brokers: env.KAFKA_BROKERS,
  clientId: env.KAFKA_CLIENT_ID ?? defaultClientId,
  partitions: env.KAFKA_PARTITIONS,
  topics: {
    orderEvents: env.KAFKA_TOPIC_ORDER_EVENTS,
    webhookRequests: env.KAFKA_TOPIC_WEBHOOK_REQUESTS,
    deadLetter: env.KAFKA_TOPIC_DEAD_LETTER,
  },
});

export type KafkaConfig = ReturnType<typeof kafkaConfig>;
