import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const projectFile = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export type Started = { url: string; process: ChildProcess; stop: () => Promise<void> };

/**
 * Servers run pinned to the last core and the load generator (this process) to the others, when taskset
 * exists: on a two-core machine this keeps the two from trading places under the scheduler, which
 * otherwise makes runs differ by 20 % or more.
 */
const serverCore = String(availableParallelism() - 1);
export const pinned = existsSync('/usr/bin/taskset') && availableParallelism() > 1;
if (pinned)
  execFileSync('taskset', ['-p', '-c', `0-${Number(serverCore) - 1}`, String(process.pid)], {
    stdio: 'ignore',
  });

/**
 * Starts a Node process of the project (or, given an absolute path, of another checkout) and waits for the URL it announces (a log line, or a bare URL).
 * With `logFile`, everything it writes (stdout and stderr) goes on being appended to that file for as long
 * as it runs; without, stderr is this process's and stdout is read for the URL, then dropped.
 */
// BENCH_CPU_PROFILE=DIR makes each service process write a CPU profile (node --cpu-prof) there when it stops.
export const cpuProfileEnv = (): Record<string, string> => {
  const dir = process.env['BENCH_CPU_PROFILE'];
  return dir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` } : {};
};

export const startProcess = async (
  script: string,
  args: string[],
  /** Added to this process's environment; a variable given as undefined is left out. */
  env: Record<string, string | undefined>,
  { logFile }: { logFile?: string } = {},
): Promise<Started> => {
  const command = pinned
    ? (['taskset', ['-c', serverCore, process.execPath]] as const)
    : ([process.execPath, []] as const);
  const logFd = logFile === undefined ? undefined : openSync(logFile, 'a');
  const file = isAbsolute(script) ? script : projectFile(script);
  const child = spawn(command[0], [...command[1], file, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', logFd ?? 'inherit'],
  });
  // A benchmark that fails leaves no server behind. One listener per process started (a dozen for the
  // distributed orders benchmark's two stands): not a leak, so Node is not to warn of it.
  const killOnExit = () => child.kill('SIGTERM');
  process.setMaxListeners(Math.max(process.getMaxListeners(), process.listenerCount('exit') + 2));
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const started = (url: string): Started => ({
    url,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  });
  const urlOf = (line: string) => {
    const url = line.startsWith('{') ? (JSON.parse(line) as { url?: string }).url : line.trim();
    return url?.startsWith('http') ? url : undefined;
  };
  const lines = createInterface({ input: child.stdout! });
  if (logFd === undefined) {
    // The log is read (and dropped) after the URL too: a pipe nobody reads would stall the server once
    // its buffer is full (one line per request at LOG_LEVEL=info).
    return new Promise<Started>((resolve, reject) => {
      let announced = false;
      lines.on('line', (line) => {
        if (announced) return;
        const url = urlOf(line);
        if (url) {
          announced = true;
          resolve(started(url));
        }
      });
      child.once('exit', () => {
        if (!announced) reject(new Error(`${script} exited before announcing its URL`));
      });
    });
  }
  return new Promise<Started>((resolve, reject) => {
    let announced = false;
    lines.on('line', (line) => {
      writeSync(logFd, `${line}\n`);
      if (announced) return;
      const url = urlOf(line);
      if (url) {
        announced = true;
        resolve(started(url));
      }
    });
    child.once('exit', (code, signal) => {
      closeSync(logFd);
      if (!announced)
        reject(
          new Error(
            `${script} exited (${code ?? signal}) before announcing its URL; its log (${logFile}):\n` +
              readFileSync(logFile!, 'utf8').slice(-4000),
          ),
        );
    });
  });
};

export type LoadResult = {
  requestsPerSecond: number;
  /** Requests answered in all. */
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Answers of another status than the expected one (2xx, unless `expectStatus` said otherwise). */
  unexpected: number;
  errors: number;
  /** CPU time (user + system) the server spent per request, in microseconds; steadier than requests/s. */
  cpuMicrosPerRequest: number;
  /** The same for each of `processes` (when given), by name. */
  cpuMicrosPerRequestOf: Record<string, number>;
};

/** CPU time a process has used so far, in ms (Linux /proc, clock ticks of 10 ms). */
const cpuMillis = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** autocannon against one URL of a server: mean requests/s, latency percentiles in ms, server CPU per request. */
export const load = async (
  server: Started,
  url: string,
  options: {
    connections: number;
    durationSeconds: number;
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    body?: string;
    /** The status every answer should have; without, any 2xx. */
    expectStatus?: number;
    /** Other processes whose CPU time per request to report too (a distributed service's others). */
    processes?: readonly { name: string; pid: number }[];
  },
): Promise<LoadResult> => {
  const others = options.processes ?? [];
  const othersBefore = others.map(({ pid }) => cpuMillis(pid));
  const cpuBefore = cpuMillis(server.process.pid!);
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: options.headers ?? {},
    method: options.method ?? 'GET',
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    unexpected:
      options.expectStatus === undefined
        ? result.non2xx
        : result.requests.total -
          ((result.statusCodeStats as Record<string, { count?: number }>)[String(options.expectStatus)]
            ?.count ?? 0),
    errors: result.errors,
    cpuMicrosPerRequest: Math.round(
      ((cpuMillis(server.process.pid!) - cpuBefore) * 1000) / result.requests.total,
    ),
    cpuMicrosPerRequestOf: Object.fromEntries(
      others.map(({ name, pid }, index) => [
        name,
        Math.round(((cpuMillis(pid) - othersBefore[index]!) * 1000) / result.requests.total),
      ]),
    ),
  };
};

export { median } from './report.ts';
