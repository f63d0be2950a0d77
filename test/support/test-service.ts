import type { EventLogConfig } from '../../infrastructure/config/service-environment.ts';
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { CatalogStore } from '../../catalog/catalog.ts';
import { createSqliteCatalogStore } from '../../catalog/sqlite-catalog-store.ts';
import type { IdempotencyStore } from '../../command-api/idempotency/idempotency-store.ts';
import { createSqliteIdempotencyStore } from '../../command-api/idempotency/sqlite-idempotency-store.ts';
import { embeddedConfigSchema } from '../../embedded/config.ts';
import { startEmbedded } from '../../embedded/start.ts';
import { hashPassword } from '../../infrastructure/auth/passwords.ts';
import type { RefreshTokenStore } from '../../infrastructure/auth/refresh-tokens.ts';
import type { Role } from '../../domain/identity/roles.ts';
import { createSqliteRefreshTokenStore } from '../../infrastructure/auth/sqlite-refresh-token-store.ts';
import { createSqliteUserStore } from '../../identity/sqlite-user-store.ts';
import type { UserStore } from '../../identity/users.ts';
import { parseConfig } from '../../infrastructure/config/parse-config.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import type { CheckpointStore } from '../../infrastructure/event-sourcing/checkpoints.ts';
import { createSqliteCheckpointStore } from '../../infrastructure/event-sourcing/sqlite-checkpoint-store.ts';
import { checkResponsesAgainstDocument } from './contract-fetch.ts';
import { startDistributedTestService } from './distributed-service.ts';
import { testClock, type TestClock, type TestTime } from './test-clocks.ts';

export { manualClock, realTimeClock } from './test-clocks.ts';

// Cheaper than production's parameters, same format and code path: verification reads them from the hash.
const testScrypt = { N: 1024, r: 8, p: 1 };

export type TestUser = { id: string; email: string; password: string; roles: Role[] };

/** The service's stores, opened beside it, so a test can change users and the catalogue as the admin CLI would. */
export type TestStores = {
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  catalog: CatalogStore;
  idempotency: IdempotencyStore;
  checkpoints: CheckpointStore;
};

export type TestService = TestStores & {
  readonly url: string;
  /**
   * The embedded default's HTTP handler, the one its port serves, for requests sent in-process
   * (test/support/api-driver.ts); absent when the service runs in processes of its own (distributed).
   */
  readonly handler?: RequestListener;
  /**
   * Every process that serves the HTTP API, by its own address (the embedded process; the command API and
   * the query API, without the method router in front): for tests that must reach each as sent.
   */
  apiOrigins(): string[];
  /** Where the service keeps its files (the embedded stores; the shared log and keys when distributed). */
  dataDir: string;
  /** What the admin CLI is given to work on this service's stores, as an operator would configure it. */
  adminEnv: Record<string, string>;
  /** The service's event log, for tests that append behind its back (`openEventLog`). */
  eventLog: EventLogConfig;
  clock: TestClock;
  /** One-time notices the service printed for the operator (the demo credentials). */
  announced: string[];
  addUser(roles: Role[], email?: string): Promise<TestUser>;
  login(user: Pick<TestUser, 'email' | 'password'>): Promise<Tokens>;
  /** A signed-in user of the given roles: its record and a bearer Authorization header. */
  signIn(roles: Role[]): Promise<TestUser & { tokens: Tokens; auth: { Authorization: string } }>;
  /** Stops the service as SIGTERM would and starts it again on the same data (on a new port). */
  restart(): Promise<void>;
  stop(): Promise<void>;
};

type Tokens = { access_token: string; refresh_token: string; expires_in: number };

/** What every test service offers on top of its stores: users made and signed in as the tests need. */
export const userHelpers = (url: () => string, users: UserStore, clock: TestClock) => {
  const addUser = async (roles: Role[], email = `${roles.join('-')}-${randomUUID()}@shop.example`) => {
    const password = `pw-${randomUUID()}`;
    const id = randomUUID();
    await users.addUser({
      id,
      email,
      name: `Test ${roles.join(' ')}`,
      passwordHash: await hashPassword(password, testScrypt),
      roles,
      disabled: false,
      createdAt: clock.now().toISOString(),
    });
    return { id, email, password, roles } satisfies TestUser;
  };
  const login = async (user: Pick<TestUser, 'email' | 'password'>): Promise<Tokens> => {
    const response = await fetch(`${url()}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: user.email, password: user.password }),
    });
    if (response.status !== 200)
      throw new Error(`login failed with ${response.status}: ${await response.text()}`);
    return (await response.json()) as Tokens;
  };
  return {
    addUser,
    login,
    async signIn(roles: Role[]) {
      const user = await addUser(roles);
      const tokens = await login(user);
      return { ...user, tokens, auth: { Authorization: `Bearer ${tokens.access_token}` } };
    },
  };
};

/** Which deployment the HTTP suites run against: the embedded default, or the distributed mode's processes. */
export const testTarget = (): 'embedded' | 'distributed' =>
  process.env['TEST_TARGET'] === 'distributed' ? 'distributed' : 'embedded';

/**
 * The real service on ephemeral ports over fresh data: the embedded default in `npm test`; with
 * TEST_TARGET=distributed (`npm run test:integration`), the four processes of the distributed mode on
 * FerretDB and Kafka. Environment variables a process does not read are ignored by it. `logger` (the
 * embedded default only; silent unless given) receives the service's log, for tests of what it logs.
 */
export const startTestService = (
  env: Record<string, string> = {},
  { time = 'manual', logger }: { time?: TestTime; logger?: Logger } = {},
): Promise<TestService> => {
  if (testTarget() !== 'distributed') return startEmbeddedTestService(env, { time, logger });
  if (logger) throw new Error('the distributed test service logs in its own processes: no logger option');
  return startDistributedTestService(env, { time });
};

const startEmbeddedTestService = async (
  env: Record<string, string>,
  { time, logger = pino({ level: 'silent' }) }: { time: TestTime; logger?: Logger | undefined },
): Promise<TestService> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'order-service-test-'));
  // Webhook retries fall due by the clock: tests of deliveries let it run.
  const clock = testClock(time);
  const config = parseConfig(embeddedConfigSchema, {
    PORT: '0',
    DATA_DIR: dataDir,
    SEED_DEMO_USERS: 'false',
    PUBLIC_BASE_URL: 'https://orders.example',
    // This service shares its event loop with the test runner and the tests' own clients and receivers:
    // the loop's delay is not the service's load, so that bound is off here (a test may set it).
    HTTP_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...env,
  });
  const announced: string[] = [];
  const start = () =>
    startEmbedded({
      config,
      logger,
      clock,
      announce: (text) => announced.push(text),
    });
  const startChecked = async () => {
    const running = await start();
    await checkResponsesAgainstDocument(running.url);
    return running;
  };
  let service = await startChecked();
  const readStore = openDatabase({ path: join(dataDir, 'read-store.sqlite') });
  const users = createSqliteUserStore(readStore);

  return {
    get url() {
      return service.url;
    },
    get handler() {
      return service.handler;
    },
    apiOrigins: () => [service.url],
    dataDir,
    adminEnv: { DATA_DIR: dataDir },
    eventLog: { kind: 'sqlite-file', path: join(dataDir, 'events.sqlite'), pollIntervalMs: 250 },
    clock,
    announced,
    users,
    refreshTokens: createSqliteRefreshTokenStore(readStore),
    catalog: createSqliteCatalogStore(readStore),
    idempotency: createSqliteIdempotencyStore(readStore),
    checkpoints: createSqliteCheckpointStore(readStore),
    ...userHelpers(() => service.url, users, clock),
    async restart() {
      await service.stop();
      service = await startChecked();
    },
    async stop() {
      readStore.close();
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
