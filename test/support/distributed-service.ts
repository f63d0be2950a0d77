import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { createMongoCatalogStore } from '../../catalog/mongo-catalog-store.ts';
import { createMongoIdempotencyStore } from '../../command-api/idempotency/mongo-idempotency-store.ts';
import { createMongoRefreshTokenStore } from '../../infrastructure/auth/mongo-refresh-token-store.ts';
import { createMongoUserStore } from '../../identity/mongo-user-store.ts';
import { loadOrCreateSigningKey } from '../../infrastructure/auth/signing-keys.ts';
import { createMongoCheckpointStore } from '../../infrastructure/event-sourcing/mongo-checkpoint-store.ts';
import { loadOrCreateSecretKey } from '../../infrastructure/crypto/secret-cipher.ts';
import { requiredServer } from './integration-env.ts';
import { createPostgresLogDatabase } from './postgres-log.ts';
import type { EventLogConfig } from '../../infrastructure/config/service-environment.ts';
import { startMethodRouter } from './method-router.ts';
import type { FromChild, ServiceName, ToChild } from './service-process.ts';
import { testClock, type TestClock, type TestTime } from './test-clocks.ts';
import { userHelpers, type TestService } from './test-service.ts';
import { checkResponsesAgainstDocument } from './contract-fetch.ts';
import { createMongoCommandLog } from './mongo-command-counter.ts';

const serviceProcess = new URL('./service-process.ts', import.meta.url).pathname;
export const serviceNames: readonly ServiceName[] = [
  'command-api',
  'query-api',
  'projections',
  'webhook-dispatcher',
];

type Running = { service: ServiceName; child: ChildProcess; url: string; exited: Promise<void> };

let eventLogReported = false;
/** Says once per test file which event log the distributed mode runs on here. */
const reportEventLog = (eventStoreUrl: string | undefined) => {
  if (eventLogReported) return;
  eventLogReported = true;
  process.stdout.write(
    eventStoreUrl
      ? '  [distributed] event log: EventStoreDB at EVENTSTORE_URL (a fresh server per run, see docs/testing.md)\n'
      : '  [distributed] event log: PostgreSQL at EVENT_LOG_URL, a database of its own per test service; ' +
          'read store FerretDB, bus Kafka\n',
  );
};

/** The service's event log: EventStoreDB when EVENTSTORE_URL is set, else a fresh PostgreSQL database. */
const eventLogOf = async (): Promise<{
  env: Record<string, string>;
  config: EventLogConfig;
  drop(): Promise<void>;
}> => {
  const eventStoreUrl = process.env['EVENTSTORE_URL'];
  reportEventLog(eventStoreUrl);
  if (eventStoreUrl) {
    return {
      env: { EVENTSTORE_URL: eventStoreUrl },
      config: { kind: 'eventstoredb', url: eventStoreUrl },
      drop: async () => {},
    };
  }
  const database = await createPostgresLogDatabase();
  const poolSize = 4;
  return {
    env: { EVENT_LOG_URL: database.url, EVENT_LOG_POOL_SIZE: String(poolSize) },
    config: {
      kind: 'postgres',
      url: database.url,
      poolSize,
      statementTimeoutMs: 10_000,
      pollIntervalMs: 1000,
    },
    drop: database.drop,
  };
};

/**
 * The distributed mode as users run it, on this host: four separate processes (command API, query API,
 * projections, webhook dispatcher) on a PostgreSQL event log (EventStoreDB when EVENTSTORE_URL is set),
 * FerretDB and Kafka. A method router gives the HTTP suite one address. Each service gets its own log
 * database, read-store database, topics and consumer group.
 */
export const startDistributedTestService = async (
  env: Record<string, string>,
  {
    time,
    countMongoCommands = false,
  }: {
    time: TestTime;
    /** Each process reports every MongoDB command it sends (driver command monitoring) to `mongoCommands`. */
    countMongoCommands?: boolean;
  },
) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'order-service-distributed-'));
  const id = randomUUID().replaceAll('-', '');
  const keys = join(dataDir, 'keys');
  loadOrCreateSigningKey(join(keys, 'jwt-signing-key.pem'));
  loadOrCreateSecretKey(join(keys, 'webhook-secret-key'));
  loadOrCreateSecretKey(join(keys, 'personal-data-key'));
  loadOrCreateSecretKey(join(keys, 'consistency-token-key'));
  const database = `test_${id}`;
  const eventLog = await eventLogOf();
  const childEnv: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    PORT: '0',
    LOG_LEVEL: process.env['TEST_SERVICE_LOG_LEVEL'] ?? 'warn',
    TEST_TIME: time,
    ...eventLog.env,
    MONGODB_URL: requiredServer('MONGODB_URL'),
    MONGODB_DATABASE: database,
    KAFKA_BROKERS: requiredServer('KAFKA_BROKERS'),
    KAFKA_PARTITIONS: '3',
    KAFKA_TOPIC_ORDER_EVENTS: `order-events-${id}`,
    KAFKA_TOPIC_WEBHOOK_REQUESTS: `webhook-requests-${id}`,
    KAFKA_TOPIC_DEAD_LETTER: `dead-letter-${id}`,
    KAFKA_CONSUMER_GROUP: `webhook-dispatcher-${id}`,
    JWT_PRIVATE_KEY_FILE: join(keys, 'jwt-signing-key.pem'),
    WEBHOOK_SECRET_KEY_FILE: join(keys, 'webhook-secret-key'),
    PERSONAL_DATA_KEY_FILE: join(keys, 'personal-data-key'),
    CONSISTENCY_TOKEN_KEY_FILE: join(keys, 'consistency-token-key'),
    PUBLIC_BASE_URL: 'https://orders.example',
    SEED_DEMO_USERS: 'false',
    ...env,
  };
  const clock = testClock(time);
  const announced: string[] = [];
  /** By instance: a service's name, or another name for a second process of it (a second dispatcher). */
  const running = new Map<string, Running>();
  let advances = 0;
  const pendingAdvances = new Map<number, () => void>();
  const mongoCommands = createMongoCommandLog();
  /** Everything each instance wrote, by instance, over all its starts: its log (stdout) and its stderr. */
  const outputs = new Map<string, { log: string; stderr: string }>();
  const outputOf = (instance: string) => {
    let output = outputs.get(instance);
    if (!output) outputs.set(instance, (output = { log: '', stderr: '' }));
    return output;
  };

  const startService = (name: ServiceName, instance: string = name, extraEnv: Record<string, string> = {}) =>
    new Promise<Running>((resolve, reject) => {
      const child = fork(serviceProcess, [name], {
        env: { ...childEnv, ...(countMongoCommands ? { TEST_MONGO_COMMANDS: instance } : {}), ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
      // The log (stdout) and stderr: kept for the tests of what a process logs (`processes.outputOf`), shown
      // when the process fails to start, or all along with TEST_SERVICE_LOG_LEVEL set.
      let output = '';
      const kept = outputOf(instance);
      const keep = (stream: 'log' | 'stderr') => (chunk: Buffer) => {
        kept[stream] += chunk.toString();
        output = (output + chunk.toString()).slice(-20_000);
        if (process.env['TEST_SERVICE_LOG_LEVEL']) process.stderr.write(chunk);
      };
      child.stdout?.on('data', keep('log'));
      child.stderr?.on('data', keep('stderr'));
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      child.once('exit', (code, signal) =>
        reject(new Error(`${instance} exited (${code ?? signal}) before listening:\n${output}`)),
      );
      child.on('message', (message: FromChild) => {
        if (message.type === 'listening') {
          const entry = { service: name, child, url: message.url, exited };
          running.set(instance, entry);
          resolve(entry);
        } else if (message.type === 'advanced' || message.type === 'flushed') {
          pendingAdvances.get(message.id)?.();
        } else if (message.type === 'mongo-command') {
          mongoCommands.add(message.command);
        } else if (message.type === 'announce') {
          announced.push(message.text);
        }
      });
    });

  const stopService = async (instance: string, signal: NodeJS.Signals = 'SIGTERM') => {
    const entry = running.get(instance);
    if (!entry) return;
    running.delete(instance);
    entry.child.kill(signal);
    await entry.exited;
  };

  const startAll = async () => {
    // The command API first: it seeds the catalogue the query API then serves. The projections process
    // and the dispatcher meanwhile: the query API is told where they are.
    await Promise.all([
      startService('command-api'),
      startService('projections'),
      startService('webhook-dispatcher'),
    ]);
    // The console the query API serves sends its commands to the command API when opened on the query
    // API directly (as docker-compose.yml publishes it), not through the method router; its health view
    // reads the relay's lag and the delivery counts from the other two, through the query API.
    await startService('query-api', 'query-api', {
      CONSOLE_COMMAND_API_URL: urlOf('command-api'),
      CONSOLE_PROJECTIONS_URL: urlOf('projections'),
      CONSOLE_WEBHOOK_DISPATCHER_URL: urlOf('webhook-dispatcher'),
    });
  };
  const stopAll = () => Promise.all([...running.keys()].map((instance) => stopService(instance)));

  /** The running instances of a service in turn: a second command or query API shares the router's load. */
  let turn = 0;
  const nextUrlOf = (name: ServiceName) => {
    const urls = [...running.values()].filter((entry) => entry.service === name).map(({ url }) => url);
    if (urls.length === 0) throw new Error(`no ${name} is running`);
    return urls[turn++ % urls.length]!;
  };
  const urlOf = (name: ServiceName) => {
    const entry = running.get(name);
    if (!entry) throw new Error(`${name} is not running`);
    return entry.url;
  };

  try {
    await startAll();
  } catch (error) {
    await stopAll();
    await eventLog.drop();
    throw error;
  }
  const router = await startMethodRouter({
    command: () => nextUrlOf('command-api'),
    query: () => nextUrlOf('query-api'),
  });
  const mongo = await MongoClient.connect(requiredServer('MONGODB_URL'));
  const db = mongo.db(database);
  const users = await createMongoUserStore(db);

  const distributedClock: TestClock = {
    now: () => clock.now(),
    async advance(ms) {
      await clock.advance(ms);
      await Promise.all(
        [...running.values()].map(
          ({ child }) =>
            new Promise<void>((resolve) => {
              const advance: ToChild = { type: 'advance', ms, id: ++advances };
              pendingAdvances.set(advance.id, () => {
                pendingAdvances.delete(advance.id);
                resolve();
              });
              child.send(advance);
            }),
        ),
      );
    },
  };

  /** Resolves once every process has reported each command it sent before now. */
  const flushMongoCommands = () =>
    Promise.all(
      [...running.values()].map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            const flush: ToChild = { type: 'flush', id: ++advances };
            pendingAdvances.set(flush.id, () => {
              pendingAdvances.delete(flush.id);
              resolve();
            });
            child.send(flush);
          }),
      ),
    );

  await checkResponsesAgainstDocument(router.url);
  return {
    /** With `countMongoCommands`: the commands each process sent; flush before reading what just ran. */
    mongoCommands: { log: mongoCommands, flush: flushMongoCommands },
    url: router.url,
    apiOrigins: () => [urlOf('command-api'), urlOf('query-api')],
    dataDir,
    adminEnv: {
      DATA_DIR: dataDir,
      MONGODB_URL: childEnv['MONGODB_URL']!,
      MONGODB_DATABASE: database,
      PERSONAL_DATA_KEY_FILE: childEnv['PERSONAL_DATA_KEY_FILE']!,
      ...eventLog.env,
    },
    eventLog: eventLog.config,
    clock: distributedClock,
    announced,
    users,
    refreshTokens: await createMongoRefreshTokenStore(db),
    catalog: await createMongoCatalogStore(db),
    idempotency: await createMongoIdempotencyStore(db),
    checkpoints: createMongoCheckpointStore(db),
    ...userHelpers(() => router.url, users, distributedClock),
    async restart() {
      await stopAll();
      await startAll();
    },
    async stop() {
      await router.close();
      await stopAll();
      await db.dropDatabase();
      await mongo.close();
      await eventLog.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    /**
     * The fault tests' handle on the processes, by instance (a service's name unless started under another):
     * stop with any signal (SIGKILL for a crash), start again or start another of a service.
     */
    processes: {
      urlOf,
      stop: stopService,
      start: startService,
      /**
       * What an instance wrote so far, over all its starts: its log (pino's JSON lines on stdout, at
       * LOG_LEVEL, `warn` unless the test sets it) and its stderr. Empty for an instance never started.
       */
      outputOf: (instance: string) => ({ log: '', stderr: '', ...outputs.get(instance) }),
      /** The instances started so far, by name (a service's name, or another name given at start). */
      instances: () => [...outputs.keys()],
      /** The MongoDB database. */
      database,
      env: childEnv,
    },
  } satisfies TestService & Record<string, unknown>;
};
