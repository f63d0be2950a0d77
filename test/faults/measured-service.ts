// The embedded default as `npm start` runs it (`node embedded/main.ts`), in a child process of its own, so
// that a fault test can measure its memory (/proc/PID/status) apart from the test's, and see every line it
// logs. Users are added to its read store directly, as the admin CLI would, while it runs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteUserStore } from '../../identity/sqlite-user-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { startEmbeddedChild } from '../support/embedded-child.ts';
import { realTimeClock } from '../support/test-clocks.ts';
import { userHelpers } from '../support/test-service.ts';

/** What the kernel says of a process's resident memory, in MB: now (VmRSS) and its peak (VmHWM). */
export const residentMemory = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]);
  return { rssMb: kilobytes('VmRSS') / 1024, peakMb: kilobytes('VmHWM') / 1024 };
};

/**
 * Starts the embedded default as `startEmbeddedChild` does (its log at LOG_LEVEL warn unless told; its
 * error and warn lines kept, all lines counted; every response checked against its OpenAPI document), over
 * fresh data with the given environment. `stop` sends SIGTERM, resolves with the exit code and removes the
 * data.
 */
export const startMeasuredService = async (env: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'order-service-faults-'));
  const child = await startEmbeddedChild(dataDir, env);
  const readStore = openDatabase({ path: join(dataDir, 'read-store.sqlite') });
  const users = createSqliteUserStore(readStore);
  let stopped: Promise<number | null> | undefined;
  return {
    ...child,
    dataDir,
    memory: () => residentMemory(child.pid),
    ...userHelpers(() => child.url, users, realTimeClock()),
    /** Sends SIGTERM (once) and resolves with the exit code, then removes the data. */
    stop(): Promise<number | null> {
      stopped ??= (async () => {
        readStore.close();
        const { code } = await child.kill('SIGTERM');
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
