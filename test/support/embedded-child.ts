import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Role } from '../../domain/identity/roles.ts';
import { checkResponsesAgainstDocument } from './contract-fetch.ts';
import { postJson } from './http.ts';
import { runAdmin } from './run-admin.ts';

// The embedded default as an operator runs it: `node embedded/main.ts` in its own process, on DATA_DIR,
// which a test can kill with any signal and start again on the same data.

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = fileURLToPath(new URL('../../embedded/main.ts', import.meta.url));

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** A port nothing listens on now (the kernel's choice of a free one). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * Polls `check` until it yields a value (neither undefined nor false), or fails after `timeoutMs` saying what
 * it waited for.
 */
export const pollUntil = async <T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 30_000, intervalMs = 50 } = {},
): Promise<T> => {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};

const childEnv = (dataDir: string, port: number, env: Record<string, string>) => {
  // The integration servers may be exported in the environment: the embedded default uses none of them.
  const {
    MONGODB_URL: _mongo,
    KAFKA_BROKERS: _kafka,
    EVENTSTORE_URL: _esdb,
    EVENT_LOG_URL: _postgresLog,
    ...inherited
  } = process.env;
  return {
    ...inherited,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SEED_DEMO_USERS: 'false',
    // Fixed, not http://localhost:PORT: it is the tokens' issuer, and a restart picks another port.
    PUBLIC_BASE_URL: 'https://orders.example',
    ...env,
  };
};

/** Starts `node embedded/main.ts` on `dataDir` and a free port, from the repository's root as `npm start`. */
const spawnEmbedded = async (dataDir: string, env: Record<string, string>) => {
  const port = await freePort();
  const child = spawn(process.execPath, [main], {
    cwd: root,
    env: childEnv(dataDir, port, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, url: `http://127.0.0.1:${port}` };
};

type LogLine = { level?: unknown; msg?: unknown; projection?: unknown };

/**
 * Reads what a process writes, line by line: keeps its last `lines` lines for a failing test to show and
 * every log line at warn and at error and above, and counts its log lines, in all and by message.
 */
const watchOutput = (child: { stdout: Readable; stderr: Readable }, lines = 200) => {
  const output: string[] = [];
  const errors: string[] = [];
  const warnings: string[] = [];
  const messages = new Map<string, number>();
  let logLines = 0;
  const count = (key: string) => messages.set(key, (messages.get(key) ?? 0) + 1);
  const read = (line: string) => {
    if (!line) return;
    output.push(line);
    if (output.length > lines) output.shift();
    let log: LogLine | null;
    try {
      log = JSON.parse(line) as LogLine | null;
    } catch {
      return; // not a log line (stderr text)
    }
    if (typeof log?.level !== 'number') return;
    logLines++;
    if (log.level >= 50) errors.push(line);
    else if (log.level >= 40) warnings.push(line);
    if (typeof log.msg !== 'string') return;
    count(log.msg);
    if (typeof log.projection === 'string') count(`${log.msg} (${log.projection})`);
  };
  for (const input of [child.stdout, child.stderr]) createInterface({ input }).on('line', read);
  return {
    output,
    errors,
    warnings,
    logLines: () => logLines,
    logged: (msg: string) => messages.get(msg) ?? 0,
  };
};

export type EmbeddedChild = {
  url: string;
  pid: number;
  /** The last lines of its stdout and stderr (pino JSON at LOG_LEVEL, warn unless told). */
  output: string[];
  /** Its log lines at level error (50) and above, verbatim, all of them. */
  errors: string[];
  /** Its log lines at level warn (40), verbatim, all of them. */
  warnings: string[];
  /** How many log lines it wrote. */
  logLines(): number;
  /** How many log lines with this `msg` it wrote; `msg (name)` counts those of projection `name`. */
  logged(msg: string): number;
  /** Whether it still runs. */
  alive(): boolean;
  exited: Promise<Exit>;
  /** Sends the signal and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<Exit>;
};

/**
 * Starts `node embedded/main.ts` on `dataDir` and a free port, waits until GET /health answers, and checks
 * every later response from it against the OpenAPI document it serves. Fails when the process exits first.
 * Its log arrives in batches (every 100 ms at most): poll for a line rather than expect it at once.
 */
export const startEmbeddedChild = async (
  dataDir: string,
  env: Record<string, string> = {},
): Promise<EmbeddedChild> => {
  const { child, url } = await spawnEmbedded(dataDir, env);
  const watched = watchOutput(child);
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  await pollUntil(
    `GET ${url}/health`,
    async () => {
      if (exit)
        throw new Error(`the service exited (${JSON.stringify(exit)}):\n${watched.output.join('\n')}`);
      try {
        return (await fetch(`${url}/health`)).status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 60_000 },
  );
  await checkResponsesAgainstDocument(url);
  return {
    ...watched,
    url,
    pid: child.pid!,
    alive: () => !exit,
    exited,
    async kill(signal) {
      if (!exit) child.kill(signal);
      return exited;
    },
  };
};

/** Runs `node embedded/main.ts` on `dataDir` expecting it not to start: its exit and what it wrote. */
export const runEmbeddedToExit = async (
  dataDir: string,
  env: Record<string, string> = {},
  timeoutMs = 30_000,
) => {
  const { child } = await spawnEmbedded(dataDir, env);
  return new Promise<Exit & { stdout: string; stderr: string }>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service was still running after ${timeoutMs} ms:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
};

export type SignedIn = { email: string; auth: { Authorization: string } };

/** Adds a user with the admin CLI, as an operator would, on the service's DATA_DIR. */
export const addUserWithCli = async (dataDir: string, roles: Role[]) => {
  const email = `${roles.join('-')}-${randomUUID()}@shop.example`;
  const password = `pw-${randomUUID()}`;
  const added = await runAdmin(
    ['user:add', '--email', email, '--password', password, '--role', roles.join(',')],
    { DATA_DIR: dataDir },
  );
  if (added.code !== 0) throw new Error(`user:add failed (${added.code}): ${added.stderr}`);
  return { email, password };
};

/** Signs a user in with the password grant: its bearer Authorization header. */
export const signIn = async (url: string, user: { email: string; password: string }): Promise<SignedIn> => {
  const response = await postJson(`${url}/auth/token`, {
    grant_type: 'password',
    username: user.email,
    password: user.password,
  });
  if (response.status !== 200) throw new Error(`sign-in: ${response.status} ${await response.text()}`);
  const { access_token } = (await response.json()) as { access_token: string };
  return { email: user.email, auth: { Authorization: `Bearer ${access_token}` } };
};

/**
 * Is this what fetch throws when there was no (whole) HTTP answer: the connection failed or broke
 * ('fetch failed', 'terminated')? A response the OpenAPI document does not describe throws a plain Error.
 */
export const isNoAnswer = (error: unknown): boolean => error instanceof TypeError;
