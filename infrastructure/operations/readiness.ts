import { TimeoutError, withTimeout } from './with-timeout.ts';

/** One dependency as GET /ready reports it. `detail` never carries a connection string or a password. */
export type CheckResult = { status: 'ok' | 'failing'; detail?: string };

/**
 * Checks one dependency: resolves with its result, or throws, which counts as failing (the error's type
 * is shown, never its message: a driver's message may name hosts or users).
 */
export type ReadinessCheck = () => Promise<CheckResult>;

export type ReadinessReport = { ready: boolean; checks: Record<string, CheckResult> };

export type Readiness = { check(): Promise<ReadinessReport> };

const ok: CheckResult = { status: 'ok' };

const failure = (error: unknown): CheckResult => {
  if (error instanceof TimeoutError) return { status: 'failing', detail: error.message };
  const type = error instanceof Error ? error.name.replace(/[^\w.-]/g, '').slice(0, 80) : typeof error;
  return { status: 'failing', detail: `the check failed (${type || 'Error'})` };
};

/**
 * Runs every check at once, each bounded by `timeoutMs`. A check still running from an earlier probe is
 * awaited rather than started again, so probes against an unreachable store never pile up.
 */
export const createReadiness = ({
  checks,
  timeoutMs,
}: {
  checks: Record<string, ReadinessCheck>;
  timeoutMs: number;
}): Readiness => {
  const running = new Map<string, Promise<CheckResult>>();
  const run = (name: string, check: ReadinessCheck): Promise<CheckResult> => {
    let pending = running.get(name);
    if (!pending) {
      pending = Promise.resolve()
        .then(check)
        .finally(() => running.delete(name));
      running.set(name, pending);
    }
    return withTimeout(pending, timeoutMs).catch(failure);
  };
  return {
    async check() {
      const entries = Object.entries(checks);
      const results = await Promise.all(entries.map(([name, check]) => run(name, check)));
      const report = Object.fromEntries(entries.map(([name], index) => [name, results[index]!]));
      return { ready: results.every((result) => result.status === 'ok'), checks: report };
    },
  };
};

/** A dependency is reachable when `ping` resolves. */
export const pingCheck =
  (ping: () => Promise<unknown>): ReadinessCheck =>
  async () => {
    await ping();
    return ok;
  };
