import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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

/** Starts a Node process of the project and waits for the URL it announces (a log line, or a bare URL). */
export const startProcess = async (
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<Started> => {
  const command = pinned
    ? (['taskset', ['-c', serverCore, process.execPath]] as const)
    : ([process.execPath, []] as const);
  const child = spawn(command[0], [...command[1], projectFile(script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const url = line.startsWith('{') ? (JSON.parse(line) as { url?: string }).url : line.trim();
    if (url?.startsWith('http')) {
      return {
        url,
        process: child,
        stop: () =>
          new Promise((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      };
    }
  }
  throw new Error(`${script} exited before announcing its URL`);
};

export type LoadResult = {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU time (user + system) the server spent per request, in microseconds; steadier than requests/s. */
  cpuMicrosPerRequest: number;
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
  },
): Promise<LoadResult> => {
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
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuMicrosPerRequest: Math.round(
      ((cpuMillis(server.process.pid!) - cpuBefore) * 1000) / result.requests.total,
    ),
  };
};

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
