// The embedded default as `npm start` runs it (`node embedded/main.ts`), in a child process of its own, so
// that a fault test can measure its memory (/proc/PID/status) apart from the test's, and see every line it
// logs. Users are added to its read store directly, as the admin CLI would, while it runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createSqliteUserStore } from '../../identity/sqlite-user-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { checkResponsesAgainstDocument } from '../support/contract-fetch.ts';
import { realTimeClock } from '../support/test-clocks.ts';
import { userHelpers } from '../support/test-service.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What the kernel says of a process's resident memory, in MB: now (VmRSS) and its peak (VmHWM). */
export const residentMemory = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]);
  return { rssMb: kilobytes('VmRSS') / 1024, peakMb: kilobytes('VmHWM') / 1024 };
};

type LogLine = { level?: number; msg?: string; url?: string };

/**
 * Starts `node embedded/main.ts` over fresh data on an ephemeral port with the given environment, and waits
 * until it listens. Every response the test's fetch gets from it is checked against the OpenAPI document
 * it serves. Its log is read as it comes: lines at level error and above are kept (`errors`), the others
 * only counted. `stop` sends SIGTERM and resolves with the exit code.
 */
export const startMeasuredService = async (env: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'order-service-faults-'));
  const child = spawn(process.execPath, [join(root, 'embedded/main.ts')], {
    cwd: root,
    env: {
      PATH: process.env['PATH'] ?? '',
      PORT: '0',
      DATA_DIR: dataDir,
      SEED_DEMO_USERS: 'false',
      PUBLIC_BASE_URL: 'https://orders.example',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errors: string[] = [];
  const warnings: string[] = [];
  let stderr = '';
  let logLines = 0;
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      logLines++;
      // One line per request at info: the request lines are only counted, cheaply.
      if (line.includes('"level":30')) {
        if (line.includes('embedded service listening')) resolve((JSON.parse(line) as LogLine).url!);
        return;
      }
      const level = (JSON.parse(line) as LogLine).level ?? 0;
      if (level >= 50) errors.push(line);
      else if (level >= 40) warnings.push(line);
    });
    void exited.then((code) => reject(new Error(`the service exited (${code}) before listening: ${stderr}`)));
  });
  await checkResponsesAgainstDocument(url);

  const readStore = openDatabase({ path: join(dataDir, 'read-store.sqlite') });
  const users = createSqliteUserStore(readStore);
  const pid = child.pid!;
  let stopped: Promise<number | null> | undefined;
  return {
    url,
    pid,
    dataDir,
    /** Log lines at level error (50) and above, verbatim. */
    errors,
    warnings,
    logLines: () => logLines,
    memory: () => residentMemory(pid),
    alive: () => child.exitCode === null && child.signalCode === null,
    ...userHelpers(() => url, users, realTimeClock()),
    /** Sends SIGTERM (once) and resolves with the exit code, then removes the data. */
    stop(): Promise<number | null> {
      stopped ??= (async () => {
        readStore.close();
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const code = await exited;
        rmSync(dataDir, { recursive: true, force: true });
        return code;
      })();
      return stopped;
    },
  };
};

export type MeasuredService = Awaited<ReturnType<typeof startMeasuredService>>;

/** Prints what a fault test did or checked, as the other fault tests do. */
export const report = (text: string) => process.stdout.write(`  [faults] ${text}\n`);

/** The p-th percentile (0 to 100) of some values, by the nearest-rank method. */
export const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

/** Resolves once `condition` holds, checking every `everyMs`; fails with `what` after `timeoutMs`. */
export const eventually = async <T>(
  what: string,
  condition: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 30_000, everyMs = 100 } = {},
): Promise<T> => {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
};
