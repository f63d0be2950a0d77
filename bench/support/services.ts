// The service under benchmark, in either mode: the embedded process (as `npm start` runs it), or the four
// processes of the distributed mode (command API, query API, projections, webhook dispatcher) on the
// MongoDB and Kafka named by MONGODB_URL and KAFKA_BROKERS, with the event log `--log` names: a fresh
// database on the PostgreSQL of EVENT_LOG_URL (the default), one node:sqlite log file all four open (the
// single-host baseline), or the EventStoreDB of EVENTSTORE_URL. Users are made with the admin CLI before the
// service starts.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { createLogDatabase, requiredEventLogUrl } from './postgres-log.ts';
import { projectFile, startProcess, type Started } from './processes.ts';

export type Mode = 'embedded' | 'distributed';

/** The `--mode` option of parseArgs. */
export const modeOption = { mode: { type: 'string', default: 'embedded' } } as const;

/** The mode named by `--mode`; in distributed mode, exits with what to do when the servers are not set. */
export const benchMode = (value: string | undefined): Mode => {
  if (value !== 'embedded' && value !== 'distributed') {
    process.stderr.write(`--mode must be embedded or distributed, not ${value}\n`);
    process.exit(64);
  }
  if (value === 'distributed') {
    const missing = ['MONGODB_URL', 'KAFKA_BROKERS'].filter((name) => !process.env[name]);
    if (missing.length > 0) {
      process.stderr.write(
        `--mode distributed needs MongoDB and Kafka, and ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set.\n` +
          'Start the servers and export their addresses first:\n' +
          '  scripts/services.sh start\n' +
          '  eval "$(scripts/services.sh env)"\n' +
          '(or set MONGODB_URL and KAFKA_BROKERS to servers of your own).\n',
      );
      process.exit(78);
    }
  }
  return value;
};

/** The distributed mode's event log. */
export type EventLog = 'postgres' | 'sqlite-file' | 'eventstoredb';
const eventLogs: readonly EventLog[] = ['postgres', 'sqlite-file', 'eventstoredb'];

/** The `--log` option of parseArgs (distributed mode), and the log the stand beside it runs on. */
export const logOption = {
  log: { type: 'string', default: 'postgres' },
  'baseline-log': { type: 'string' },
} as const;

/** How each log is described in a report. */
export const logNames: Record<EventLog, string> = {
  postgres: 'PostgreSQL log',
  'sqlite-file': 'shared node:sqlite file',
  eventstoredb: 'EventStoreDB',
};

/**
 * The log named by `--log`, and the baseline's by `--baseline-log` (default: the shared file beside the
 * PostgreSQL log, none beside another; `none` for none); exits with what to do when its server is not set.
 */
export const benchLogs = (
  mode: Mode,
  log: string | undefined,
  baseline: string | undefined,
): { log: EventLog; baseline: EventLog | undefined } => {
  const check = (value: string | undefined, option: string): EventLog => {
    if (!eventLogs.includes(value as EventLog)) {
      process.stderr.write(`${option} must be one of ${eventLogs.join(', ')}, not ${value}\n`);
      process.exit(64);
    }
    if (mode === 'distributed' && value === 'postgres') requiredEventLogUrl();
    if (mode === 'distributed' && value === 'eventstoredb' && !process.env['EVENTSTORE_URL']) {
      process.stderr.write(`${option} eventstoredb needs EVENTSTORE_URL\n`);
      process.exit(78);
    }
    return value as EventLog;
  };
  const chosen = check(log, '--log');
  const other = baseline ?? (chosen === 'postgres' ? 'sqlite-file' : 'none');
  return {
    log: chosen,
    baseline: mode === 'embedded' || other === 'none' ? undefined : check(other, '--baseline-log'),
  };
};

export type BenchUser = { email: string; password: string; role: string };

export type BenchService = {
  mode: Mode;
  /** The distributed mode's event log (undefined in embedded mode). */
  log: EventLog | undefined;
  /** Where writes go (POST /orders, /auth/token, /users/me/addresses, /webhooks): the command API. */
  writeUrl: string;
  /** Where reads go (GET /orders/{id}): the query API. The same URL as writeUrl in embedded mode. */
  readUrl: string;
  /** The processes answering writes and reads (the same one in embedded mode). */
  writer: Started;
  reader: Started;
  /**
   * Every process of the service but the writer and the reader, for CPU time per request: in distributed
   * mode the others of the four, and FerretDB (or MongoDB) and Kafka when they run on this host.
   */
  others: { name: string; pid: number }[];
  /** A scratch directory, removed by stop(). */
  dataDir: string;
  stop: () => Promise<void>;
};

const addUsers = (users: readonly BenchUser[], env: NodeJS.ProcessEnv) => {
  for (const { email, password, role } of users) {
    execFileSync(
      process.execPath,
      [projectFile('cli/admin.ts'), 'user:add', '--email', email, '--password', password, '--role', role],
      { env, stdio: 'inherit' },
    );
  }
};

/**
 * The per-user write limits, out of the way: a benchmark drives one account far harder than any shopper
 * (the default is 60 orders a minute for a customer), and measures the service, not the limit. Every
 * benchmark passes these explicitly (`env`); the start below puts them first as well, so that none forgets.
 */
export const benchWriteLimits: Record<string, string> = {
  USER_WRITE_LIMIT_ORDERS: '10000000',
  USER_WRITE_LIMIT_ADDRESSES: '10000000',
  USER_WRITE_LIMIT_SESSIONS: '10000000',
  STAFF_WRITE_LIMIT_ORDERS: '10000000',
  STAFF_WRITE_LIMIT_ADDRESSES: '10000000',
  STAFF_WRITE_LIMIT_SESSIONS: '10000000',
};

export const startBenchService = async ({
  mode,
  log = 'postgres',
  prefix,
  users,
  env = {},
}: {
  mode: Mode;
  /** The distributed mode's event log. */
  log?: EventLog;
  /** Of the scratch directory's name. */
  prefix: string;
  users: readonly BenchUser[];
  /** Added to every process's environment. */
  env?: Record<string, string>;
}): Promise<BenchService> =>
  mode === 'embedded' ? startEmbedded(prefix, users, env) : startDistributed(log, prefix, users, env);

const startEmbedded = async (
  prefix: string,
  users: readonly BenchUser[],
  env: Record<string, string>,
): Promise<BenchService> => {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const { MONGODB_URL: _mongodb, ...environment } = process.env;
  addUsers(users, { ...environment, DATA_DIR: dataDir });
  const service = await startProcess('embedded/main.ts', [], {
    PORT: '0',
    DATA_DIR: dataDir,
    SEED_DEMO_USERS: 'false',
    // info: the service announces its URL in the log.
    LOG_LEVEL: 'info',
    ...benchWriteLimits,
    ...env,
  });
  return {
    mode: 'embedded',
    log: undefined,
    writeUrl: service.url,
    readUrl: service.url,
    writer: service,
    reader: service,
    others: [],
    dataDir,
    async stop() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

/** The process listening on a TCP port of this host, when it is this user's (Linux /proc); else undefined. */
const pidListeningOn = (port: number): number | undefined => {
  let inode: string | undefined;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local address, state 0A = LISTEN, inode
      if (fields[3] === '0A' && Number.parseInt(fields[1]?.split(':')[1] ?? '', 16) === port)
        inode = fields[9];
    }
  }
  if (inode === undefined) return undefined;
  const socket = `socket:[${inode}]`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${entry}/fd/${fd}`) === socket) return Number(entry);
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
};

const localPort = (hostAndPort: string) => {
  const { hostname, port } = new URL(`tcp://${hostAndPort}`);
  return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname) && port ? Number(port) : undefined;
};

/** The warnings and errors in a process log (pino JSON lines level 40 and up, and any line not JSON). */
const complaintsIn = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 40;
      } catch {
        return true;
      }
    });

/**
 * The event log's environment for the four processes (and the admin CLI), the others unset: a fresh
 * database for PostgreSQL (dropped by `drop`), a file in `dataDir`, or the EventStoreDB of EVENTSTORE_URL.
 */
const eventLogEnvironment = async (log: EventLog, dataDir: string) => {
  const unset = { EVENT_LOG_URL: undefined, EVENT_LOG_FILE: undefined, EVENTSTORE_URL: undefined };
  if (log === 'sqlite-file')
    return { env: { ...unset, EVENT_LOG_FILE: join(dataDir, 'events.sqlite') }, drop: async () => {} };
  if (log === 'eventstoredb')
    return { env: { ...unset, EVENTSTORE_URL: process.env['EVENTSTORE_URL']! }, drop: async () => {} };
  const database = await createLogDatabase(requiredEventLogUrl());
  // The log's settings stated, at their defaults: each process's pool, and no statement waits longer.
  return {
    env: {
      ...unset,
      EVENT_LOG_URL: database.url,
      EVENT_LOG_POOL_SIZE: '10',
      EVENT_LOG_STATEMENT_TIMEOUT_MS: '10000',
    },
    drop: database.drop,
  };
};

const startDistributed = async (
  log: EventLog,
  prefix: string,
  users: readonly BenchUser[],
  env: Record<string, string>,
): Promise<BenchService> => {
  const mongodbUrl = process.env['MONGODB_URL']!;
  const kafkaBrokers = process.env['KAFKA_BROKERS']!;
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  // Kept after the run: the four processes' logs (stdout and stderr).
  const logDir = mkdtempSync(join(tmpdir(), `${prefix}logs-`));
  const id = randomUUID().replaceAll('-', '').slice(0, 16);
  const keys = join(dataDir, 'keys');
  execFileSync(process.execPath, [projectFile('cli/admin.ts'), 'keys:init', keys], { stdio: 'ignore' });
  const database = `bench_${id}`;
  const topics = {
    KAFKA_TOPIC_ORDER_EVENTS: `bench-order-events-${id}`,
    KAFKA_TOPIC_WEBHOOK_REQUESTS: `bench-webhook-requests-${id}`,
    KAFKA_TOPIC_DEAD_LETTER: `bench-dead-letter-${id}`,
  };
  const eventLog = await eventLogEnvironment(log, dataDir);
  addUsers(users, { ...process.env, ...eventLog.env, MONGODB_URL: mongodbUrl, MONGODB_DATABASE: database });
  const childEnv: Record<string, string | undefined> = {
    PORT: '0',
    // info: each process announces its URL in the log.
    LOG_LEVEL: 'info',
    ...eventLog.env,
    MONGODB_URL: mongodbUrl,
    MONGODB_DATABASE: database,
    KAFKA_BROKERS: kafkaBrokers,
    ...topics,
    KAFKA_CONSUMER_GROUP: `bench-webhook-dispatcher-${id}`,
    JWT_PRIVATE_KEY_FILE: join(keys, 'jwt-signing-key.pem'),
    WEBHOOK_SECRET_KEY_FILE: join(keys, 'webhook-secret-key'),
    PERSONAL_DATA_KEY_FILE: join(keys, 'personal-data-key'),
    CONSISTENCY_TOKEN_KEY_FILE: join(keys, 'consistency-token-key'),
    PUBLIC_BASE_URL: 'https://orders.bench.example',
    SEED_DEMO_USERS: 'false',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...benchWriteLimits,
    ...env,
  };
  const running = new Map<string, Started>();
  /**
   * Starts one process; one that exits before listening is started again, twice at most, as a restart
   * policy would (a process that has just created a Kafka topic could meet a broker not listing it yet,
   * and exit). Said on stderr, since it is part of what the run saw.
   */
  const start = async (name: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        const started = await startProcess(`${name}/main.ts`, [], childEnv, {
          logFile: join(logDir, `${name}.log`),
        });
        running.set(name, started);
        return started;
      } catch (error) {
        if (attempt === 3) throw error;
        const failure = /failed to start: (.*)/.exec(String(error))?.[1] ?? String(error).split('\n')[0];
        process.stderr.write(`${name} exited before listening (${failure}); starting it again\n`);
      }
    }
  };
  const stopProcesses = () => Promise.all([...running.values()].map((started) => started.stop()));
  // The command API first: it imports the demo catalogue that the query API then serves.
  const outcomes: PromiseSettledResult<Started>[] = await Promise.allSettled([start('command-api')]);
  if (outcomes[0]!.status === 'fulfilled')
    outcomes.push(
      ...(await Promise.allSettled([start('query-api'), start('projections'), start('webhook-dispatcher')])),
    );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await stopProcesses();
    await eventLog.drop();
    throw failed.reason;
  }
  const commandApi = running.get('command-api')!;
  const queryApi = running.get('query-api')!;
  const servers = [
    { name: 'MongoDB server', port: localPort(new URL(mongodbUrl).host) },
    { name: 'Kafka broker', port: localPort(kafkaBrokers.split(',')[0]!.trim()) },
  ].flatMap(({ name, port }) => {
    const pid = port === undefined ? undefined : pidListeningOn(port);
    return pid === undefined ? [] : [{ name, pid }];
  });
  return {
    mode: 'distributed',
    log,
    writeUrl: commandApi.url,
    readUrl: queryApi.url,
    writer: commandApi,
    reader: queryApi,
    others: [
      ...['command-api', 'query-api', 'projections', 'webhook-dispatcher'].map((name) => ({
        name,
        pid: running.get(name)!.process.pid!,
      })),
      ...servers,
    ],
    dataDir,
    async stop() {
      await stopProcesses();
      // Tidy the shared servers: the run's log database, read-store database and topics.
      await eventLog.drop();
      const mongo = await MongoClient.connect(mongodbUrl);
      await mongo.db(database).dropDatabase();
      await mongo.close();
      const admin = new Kafka({
        clientId: 'bench',
        brokers: kafkaBrokers.split(',').map((broker) => broker.trim()),
        logLevel: logLevel.NOTHING,
      }).admin();
      try {
        await admin.connect();
        const existing = new Set(await admin.listTopics());
        const created = Object.values(topics).filter((topic) => existing.has(topic));
        if (created.length > 0) await admin.deleteTopics({ topics: created });
      } catch (error) {
        process.stderr.write(`could not delete the run's Kafka topics: ${String(error)}\n`);
      } finally {
        await admin.disconnect();
      }
      rmSync(dataDir, { recursive: true, force: true });
      let report = `process logs kept in ${logDir}`;
      for (const file of readdirSync(logDir).sort()) {
        const complaints = complaintsIn(readFileSync(join(logDir, file), 'utf8'));
        report += `\n  ${file}: ${complaints.length} warnings or errors`;
        for (const line of complaints.slice(0, 5)) report += `\n    ${line.slice(0, 300)}`;
      }
      console.log(report);
    },
  };
};
