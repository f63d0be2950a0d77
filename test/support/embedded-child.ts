import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Role } from '../../identity/roles.ts';
import { checkResponsesAgainstDocument } from './contract-fetch.ts';
import { postJson } from './http.ts';
import { runAdmin } from './run-admin.ts';

// The embedded default as an operator runs it: `node embedded/main.ts` in its own process, on DATA_DIR,
// which a test can kill with any signal and start again on the same data.

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

/** Polls `check` until it yields a value, or fails after `timeoutMs` saying what it waited for. */
export const pollUntil = async <T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 30_000, intervalMs = 50 } = {},
): Promise<T> => {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};

const childEnv = (dataDir: string, port: number, env: Record<string, string>) => {
  // The integration servers may be exported in the environment: the embedded default uses none of them.
  const { MONGODB_URL: _mongo, KAFKA_BROKERS: _kafka, EVENTSTORE_URL: _esdb, ...inherited } = process.env;
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

/** Keeps the last lines a process wrote, for a failing test to show, and counts its log lines by message. */
const watchOutput = (child: ChildProcess, lines = 200) => {
  const kept: string[] = [];
  const messages = new Map<string, number>();
  let partial = '';
  const keep = (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const complete = text.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete.filter(Boolean)) {
      kept.push(line);
      try {
        const { msg, projection } = JSON.parse(line) as { msg?: string; projection?: string };
        if (typeof msg !== 'string') continue;
        messages.set(msg, (messages.get(msg) ?? 0) + 1);
        if (projection)
          messages.set(`${msg} (${projection})`, (messages.get(`${msg} (${projection})`) ?? 0) + 1);
      } catch {
        // not a log line (stderr text)
      }
    }
    if (kept.length > lines) kept.splice(0, kept.length - lines);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { kept, logged: (msg: string) => messages.get(msg) ?? 0 };
};

export type EmbeddedChild = {
  url: string;
  pid: number;
  /** The last lines of its stdout and stderr (pino JSON at LOG_LEVEL, warn unless told). */
  output: string[];
  /** How many log lines with this `msg` it wrote; `msg (name)` counts those of projection `name`. */
  logged(msg: string): number;
  exited: Promise<Exit>;
  /** Sends the signal and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<Exit>;
};

/**
 * Starts `node embedded/main.ts` on `dataDir` and a free port, waits until GET /health answers, and checks
 * every later response from it against the OpenAPI document it serves. Fails when the process exits first.
 */
export const startEmbeddedChild = async (
  dataDir: string,
  env: Record<string, string> = {},
): Promise<EmbeddedChild> => {
  const port = await freePort();
  const child = spawn(process.execPath, [main], {
    env: childEnv(dataDir, port, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { kept: output, logged } = watchOutput(child);
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  await pollUntil(
    `GET ${url}/health`,
    async () => {
      if (exit) throw new Error(`the service exited (${JSON.stringify(exit)}):\n${output.join('\n')}`);
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
    url,
    pid: child.pid!,
    output,
    logged,
    exited,
    async kill(signal) {
      if (!exit) child.kill(signal);
      return exited;
    },
  };
};

/** Runs `node embedded/main.ts` on `dataDir` expecting it not to start: its exit and what it wrote. */
export const runEmbeddedToExit = (dataDir: string, env: Record<string, string> = {}, timeoutMs = 30_000) =>
  freePort().then(
    (port) =>
      new Promise<Exit & { stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [main], {
          env: childEnv(dataDir, port, env),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
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
      }),
  );

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
