import { z } from 'zod';
import { eventStoreConnectionStringProblem } from '../event-store/eventstoredb-connection-string.ts';
import { acceptSocketsOnThisPlatform } from '../http/listen.ts';
import { postgresLogUrlProblems } from '../event-store/postgres/postgres-log-url.ts';

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** How much a process logs (pino levels). */
export const logLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info')
  .describe('pino log level: fatal, error, warn, info (one line per request), debug, trace, or silent.');

/** GET /ready of every process. */
export const readinessEnvironment = {
  READY_CHECK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(60_000)
    .default(500)
    .describe('How long GET /ready waits for each store to answer before reporting it failing.'),
};

/** GET /ready of a process that runs or reads read models (embedded default, query API, projections). */
export const projectionLagEnvironment = {
  READY_MAX_PROJECTION_LAG: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(1000)
    .describe('GET /ready answers 503 while a read model trails the head of the event log by more events.'),
};

/**
 * Load shedding and the connection bound of a process serving the HTTP API (embedded default, command API,
 * query API): past a bound, a request is answered at once with 503 `overloaded` and Retry-After.
 */
export const loadSheddingEnvironment = {
  HTTP_MAX_REQUESTS_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(1000)
    .describe(
      'Requests under way at once beyond which a new one is answered 503 overloaded (Retry-After: 1) before ' +
        'any work; /health, /ready and /metrics are never refused. 0: no bound.',
    ),
  HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(64)
    .describe(
      'Requests one client address may have under way at once; beyond, a new one is answered 429 ' +
        '(Retry-After: 1) before any work, so that one client (stalled uploads, say) cannot use up the ' +
        'whole in-flight bound. The address is the peer, or X-Forwarded-For as TRUST_PROXY allows. 0: no bound.',
    ),
  HTTP_BODY_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(10_000)
    .describe(
      'A request body must arrive whole within this many ms of its headers (408 beyond, and the connection ' +
        'closed), and a connection must send its request headers within as long (closed beyond).',
    ),
  HTTP_MAX_EVENT_LOOP_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(200)
    .describe(
      'While the event loop runs late by more than this many ms (mean over 500 ms), new requests are ' +
        'answered 503 overloaded (Retry-After: 1) before any work. 0: no bound.',
    ),
  HTTP_MAX_CONNECTIONS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(10_000)
    .describe(
      'Open client connections at most; further ones are closed at once, unanswered (a last resort for ' +
        'file descriptors and memory: load shedding answers 503 well before).',
    ),
  HTTP_MAX_CONNECTIONS_PER_CLIENT: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(256)
    .describe(
      'Open connections at most from one client address (the peer: behind a reverse proxy, raise it or ' +
        'set 0 for no bound); further ones are closed at once, so that one host cannot hold every connection.',
    ),
  HTTP_ACCEPT_SOCKETS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024)
    .default(acceptSocketsOnThisPlatform)
    .describe(
      'Listening sockets sharing the HTTP port (SO_REUSEPORT, Linux only; 1 elsewhere): each accepts one new ' +
        'connection per turn of the event loop, so that a burst of clients connecting to a busy process is ' +
        'not left waiting in the kernel (64 on Linux).',
    ),
};

export const loadSheddingConfig = (env: {
  HTTP_MAX_REQUESTS_IN_FLIGHT: number;
  HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: number;
  HTTP_BODY_TIMEOUT_MS: number;
  HTTP_MAX_EVENT_LOOP_DELAY_MS: number;
  HTTP_MAX_CONNECTIONS: number;
  HTTP_MAX_CONNECTIONS_PER_CLIENT: number;
  HTTP_ACCEPT_SOCKETS: number;
}) => ({
  maxRequestsInFlight: env.HTTP_MAX_REQUESTS_IN_FLIGHT,
  maxRequestsInFlightPerClient: env.HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT,
  bodyTimeoutMs: env.HTTP_BODY_TIMEOUT_MS,
  maxEventLoopDelayMs: env.HTTP_MAX_EVENT_LOOP_DELAY_MS,
  maxConnections: env.HTTP_MAX_CONNECTIONS,
  ...(env.HTTP_MAX_CONNECTIONS_PER_CLIENT > 0
    ? { maxConnectionsPerClient: env.HTTP_MAX_CONNECTIONS_PER_CLIENT }
    : {}),
  headersTimeoutMs: env.HTTP_BODY_TIMEOUT_MS,
  acceptSockets: env.HTTP_ACCEPT_SOCKETS,
});

export type HttpLimits = ReturnType<typeof loadSheddingConfig>;

/** Variables every process of the distributed mode reads: where it listens and how much it logs. */
export const processEnvironment = (defaultPort: number) => ({
  PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(defaultPort)
    .describe('HTTP port to listen on; 0 picks a free one.'),
  HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('Interface to listen on: loopback by default; containers set 0.0.0.0.'),
  LOG_LEVEL: logLevel,
  ...readinessEnvironment,
});

/**
 * The public address and problem type base of an HTTP API (what links and problem types are built on).
 * Required: both APIs of the distributed mode must agree on it (it is also the tokens' default issuer).
 */
export const publicAddressEnvironment = {
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .describe("The service's public address (the server of /openapi.json; also the tokens' default issuer)."),
  ERROR_TYPE_BASE: z
    .url()
    .optional()
    .describe('Prefix of problem `type` URIs ({error_type_base}); default PUBLIC_BASE_URL/problems.'),
  DOCS_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'Where the orders and products tags of the OpenAPI document link ({docs_url}); default PUBLIC_BASE_URL/docs.',
    ),
};

export const publicAddress = (env: {
  PUBLIC_BASE_URL: string;
  ERROR_TYPE_BASE?: string | undefined;
  DOCS_URL?: string | undefined;
}) => {
  const publicBaseUrl = withoutTrailingSlash(env.PUBLIC_BASE_URL);
  return {
    publicBaseUrl,
    errorTypeBase: withoutTrailingSlash(env.ERROR_TYPE_BASE ?? `${publicBaseUrl}/problems`),
    docsUrl: withoutTrailingSlash(env.DOCS_URL ?? `${publicBaseUrl}/docs`),
  };
};

/**
 * EVENTSTORE_URL wherever it is read (the services, the admin CLI): checked at start by the client's own
 * parser, so that a malformed one is a configuration error naming the variable (exit 78), never a failure
 * when the log is first opened. The error never quotes the value: it may hold a password.
 */
export const eventStoreUrl = z
  .string()
  .min(1)
  .superRefine((value, context) => {
    const problem = eventStoreConnectionStringProblem(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  });

/**
 * The event log of the distributed mode: PostgreSQL or EventStoreDB, servers every process reaches across
 * hosts; or, on one host only, a node:sqlite log file that every process opens (SQLite serialises their
 * appends; each process polls it for the others' events).
 */
export const eventLogEnvironment = {
  EVENT_LOG_URL: z
    .string()
    .superRefine((url, context) => {
      for (const message of postgresLogUrlProblems(url)) context.addIssue({ code: 'custom', message });
    })
    .optional()
    .describe(
      'The event log on PostgreSQL: postgres://user:password@host:5432/database, several hosts with ' +
        '?target_session_attrs=read-write; or EVENTSTORE_URL or EVENT_LOG_FILE.',
    ),
  EVENT_LOG_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .describe("Connections each process keeps to EVENT_LOG_URL's PostgreSQL (one more listens for appends)."),
  EVENT_LOG_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(10_000)
    .describe("PostgreSQL's statement_timeout on the log's connections: no statement waits longer."),
  EVENTSTORE_URL: eventStoreUrl
    .optional()
    .describe(
      'The event log on EventStoreDB (esdb://host:2113?tls=false); or EVENT_LOG_URL or EVENT_LOG_FILE.',
    ),
  EVENT_LOG_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('The event log as a node:sqlite file every process on one host opens; or EVENT_LOG_URL.'),
  EVENT_LOG_POLL_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe(
      'How often a follower looks for events another process appended: EVENT_LOG_FILE is polled (default ' +
        '10); on EVENT_LOG_URL, the safety net under LISTEN/NOTIFY (default 1000).',
    ),
};

export type EventLogConfig =
  | { kind: 'postgres'; url: string; poolSize: number; statementTimeoutMs: number; pollIntervalMs: number }
  | { kind: 'eventstoredb'; url: string }
  | { kind: 'sqlite-file'; path: string; pollIntervalMs: number };

/**
 * Adds an issue, on the first variable, unless exactly one of `variables` is set: for alternatives such as
 * the event logs, or a secret given inline or as a file.
 */
export const requireExactlyOne =
  (variables: readonly string[], what: string) =>
  (env: Record<string, unknown>, context: z.core.$RefinementCtx): void => {
    const set = variables.filter((variable) => env[variable] !== undefined);
    if (set.length === 1) return;
    context.addIssue({
      code: 'custom',
      path: [variables[0]!],
      message: `set exactly one of ${variables.join(' and ')} (${what})${set.length > 1 ? `; ${set.join(' and ')} are set` : ''}`,
    });
  };

export const checkEventLog = requireExactlyOne(
  ['EVENT_LOG_URL', 'EVENTSTORE_URL', 'EVENT_LOG_FILE'],
  'PostgreSQL, EventStoreDB, or a node:sqlite log file shared on one host',
);

export const eventLogConfig = (env: {
  EVENT_LOG_URL?: string | undefined;
  EVENT_LOG_POOL_SIZE: number;
  EVENT_LOG_STATEMENT_TIMEOUT_MS: number;
  EVENTSTORE_URL?: string | undefined;
  EVENT_LOG_FILE?: string | undefined;
  EVENT_LOG_POLL_INTERVAL_MS?: number | undefined;
}): EventLogConfig => {
  if (env.EVENT_LOG_URL !== undefined) {
    return {
      kind: 'postgres',
      url: env.EVENT_LOG_URL,
      poolSize: env.EVENT_LOG_POOL_SIZE,
      statementTimeoutMs: env.EVENT_LOG_STATEMENT_TIMEOUT_MS,
      pollIntervalMs: env.EVENT_LOG_POLL_INTERVAL_MS ?? 1000,
    };
  }
  if (env.EVENTSTORE_URL !== undefined) return { kind: 'eventstoredb', url: env.EVENTSTORE_URL };
  return {
    kind: 'sqlite-file',
    path: env.EVENT_LOG_FILE!,
    pollIntervalMs: env.EVENT_LOG_POLL_INTERVAL_MS ?? 10,
  };
};

export const mongoEnvironment = {
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL')
    .describe('MongoDB connection string: read models, users, keys, retry state (may hold a password).'),
  MONGODB_DATABASE: z.string().min(1).default('order_service').describe('The MongoDB database.'),
};

export const kafkaEnvironment = {
  KAFKA_BROKERS: z
    .string()
    .regex(/^\s*[^\s,]+:\d+(\s*,\s*[^\s,]+:\d+)*\s*$/, 'must be host:port, comma-separated')
    .transform((value) => value.split(',').map((broker) => broker.trim()))
    .describe('Kafka brokers, host:port, comma-separated.'),
  KAFKA_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe("The Kafka client id; default the process's name (order-service-projections, ...)."),
  KAFKA_PARTITIONS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(6)
    .describe('Partitions of the topics the service creates when they are missing.'),
  KAFKA_TOPIC_ORDER_EVENTS: z
    .string()
    .min(1)
    .default('order-events')
    .describe('The topic of the public order events.'),
  KAFKA_TOPIC_WEBHOOK_REQUESTS: z
    .string()
    .min(1)
    .default('webhook-requests')
    .describe('The topic of webhook test and retry requests.'),
  KAFKA_TOPIC_DEAD_LETTER: z
    .string()
    .min(1)
    .default('webhook-dispatcher.dead-letter')
    .describe('Where the dispatcher puts messages it cannot read, instead of blocking their partition.'),
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

/** Demo data for a first start: who may sign in, and what there is to order. */
export const demoSeedEnvironment = {
  SEED_DEMO_USERS: z
    .enum(['true', 'false'])
    .default('true')
    .describe('Create one demo user per role (passwords shown once on stderr) when there is no user yet.'),
  SEED_DEMO_CATALOG: z
    .enum(['true', 'false'])
    .default('true')
    .describe('Import the demo catalogue (60 products, 6 categories) when the catalogue is empty.'),
};

/**
 * How the followers of the log (projections, relay) batch under a stream of appends: fewer read-model
 * transactions at the price of that much visibility delay. A lone event after a quiet spell is never held.
 */
export const projectionBatchEnvironment = (defaultMs: number) => ({
  PROJECTION_BATCH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(defaultMs)
    .describe('Under a stream of appends, at most one batch per this many ms for each follower of the log.'),
});

/** Read your writes: how long a query sent with a Consistency-Token may wait. */
export const consistencyEnvironment = {
  CONSISTENCY_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(5000)
    .describe('How long a query with a Consistency-Token waits for the read models before a 503.'),
};

/** Where a distributed process listens, how much it logs, and how long GET /ready waits on each check. */
export const processConfig = (env: {
  PORT: number;
  HOST: string;
  LOG_LEVEL: z.output<typeof logLevel>;
  READY_CHECK_TIMEOUT_MS: number;
}) => ({
  port: env.PORT,
  host: env.HOST,
  logLevel: env.LOG_LEVEL,
  readiness: { checkTimeoutMs: env.READY_CHECK_TIMEOUT_MS },
});

/** The stores every distributed process opens: the event log and MongoDB. */
export const distributedStoresEnvironment = { ...eventLogEnvironment, ...mongoEnvironment };

export const distributedStoresConfig = (
  env: Parameters<typeof eventLogConfig>[0] & { MONGODB_URL: string; MONGODB_DATABASE: string },
) => ({
  eventLog: eventLogConfig(env),
  mongo: { url: env.MONGODB_URL, database: env.MONGODB_DATABASE },
});

/** What an HTTP API of the distributed mode adds: its bounds under load, and its public address. */
export const httpApiEnvironment = { ...loadSheddingEnvironment, ...publicAddressEnvironment };

export const httpApiConfig = (
  env: Parameters<typeof loadSheddingConfig>[0] & Parameters<typeof publicAddress>[0],
) => ({
  http: loadSheddingConfig(env),
  ...publicAddress(env),
});
