import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createSqliteCatalogStore } from '../../catalog/sqlite-catalog-store.ts';
import { embeddedConfigSchema } from '../../embedded/config.ts';
import { startEmbedded } from '../../embedded/start.ts';
import { hashPassword } from '../../identity/passwords.ts';
import type { Role } from '../../identity/roles.ts';
import { createSqliteRefreshTokenStore } from '../../identity/sqlite-refresh-token-store.ts';
import { createSqliteUserStore } from '../../identity/sqlite-user-store.ts';
import type { Clock } from '../../infrastructure/clock.ts';
import { parseConfig } from '../../infrastructure/config/parse-config.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';

/** A clock the test moves by hand. */
export const manualClock = (start = new Date('2026-11-21T10:00:00.000Z')) => {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  } satisfies Clock & { advance: (ms: number) => void };
};

// Cheaper than production's parameters, same format and code path: verification reads them from the hash.
const testScrypt = { N: 1024, r: 8, p: 1 };

export type TestUser = { id: string; email: string; password: string; roles: Role[] };

/**
 * The real embedded service on an ephemeral port over a fresh DATA_DIR, plus a second connection to its
 * read store so tests can change users and the catalogue as the admin CLI would.
 */
/** A clock that runs in real time and that a test can still move forward. */
export const realTimeClock = () => {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance: (ms: number) => {
      offset += ms;
    },
  } satisfies Clock & { advance: (ms: number) => void };
};

export const startTestService = async (
  env: Record<string, string> = {},
  { time = 'manual' }: { time?: 'manual' | 'real' } = {},
) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'order-service-test-'));
  // Webhook retries fall due by the clock: tests of deliveries let it run.
  const clock = time === 'real' ? realTimeClock() : manualClock();
  const config = parseConfig(embeddedConfigSchema, {
    PORT: '0',
    DATA_DIR: dataDir,
    SEED_DEMO_USERS: 'false',
    PUBLIC_BASE_URL: 'https://orders.example',
    ...env,
  });
  const announced: string[] = [];
  const start = () =>
    startEmbedded({
      config,
      logger: pino({ level: 'silent' }),
      clock,
      announce: (text) => announced.push(text),
    });
  let service = await start();
  const readStore = openDatabase({ path: join(dataDir, 'read-store.sqlite') });
  const users = createSqliteUserStore(readStore);
  const refreshTokens = createSqliteRefreshTokenStore(readStore);
  const catalog = createSqliteCatalogStore(readStore);

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

  const login = async (user: Pick<TestUser, 'email' | 'password'>) => {
    const response = await fetch(`${service.url}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: user.email, password: user.password }),
    });
    if (response.status !== 200)
      throw new Error(`login failed with ${response.status}: ${await response.text()}`);
    return (await response.json()) as { access_token: string; refresh_token: string; expires_in: number };
  };

  return {
    get url() {
      return service.url;
    },
    config,
    dataDir,
    clock,
    announced,
    users,
    refreshTokens,
    catalog,
    addUser,
    login,
    /** A signed-in user of the given roles: its record and a bearer Authorization header. */
    async signIn(roles: Role[]) {
      const user = await addUser(roles);
      const tokens = await login(user);
      return { ...user, tokens, auth: { Authorization: `Bearer ${tokens.access_token}` } };
    },
    /** Stops the service as SIGTERM would and starts it again on the same DATA_DIR (on a new port). */
    async restart() {
      await service.stop();
      service = await start();
    },
    async stop() {
      readStore.close();
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

export type TestService = Awaited<ReturnType<typeof startTestService>>;
