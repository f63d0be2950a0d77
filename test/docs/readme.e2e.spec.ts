import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, pollUntil } from '../support/embedded-child.ts';
import { forbiddenOutput, shellBlocks, type ShellBlock } from './readme-blocks.ts';

// The README runs as written: its shell blocks, in order, in one bash session (-euo pipefail) from the
// repository's root, against a fresh embedded service on a free port and a fresh DATA_DIR, with a PATH
// without node_modules/.bin (as a newcomer's shell has). A block fails the test when it exits non-zero,
// when it prints what the README says nothing prints (forbiddenOutput), or when it lacks an expected text.

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = shellBlocks(readme);

const missingTools = ['bash', 'curl', 'jq'].filter(
  (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
);
if (missingTools.length > 0) {
  const reason = `${missingTools.join(', ')} not installed (the README's quick tour needs them)`;
  // .ci/run installs them and sets REQUIRE_README_TOOLS: there this test never skips.
  if (process.env['REQUIRE_README_TOOLS'] === 'true') throw new Error(reason);
  process.stderr.write(`[readme] skipped: ${reason}\n`);
}

const scratch = mkdtempSync(join(tmpdir(), 'readme-'));
/** Process groups started here: whatever is left of them is killed at the end, pass or fail. */
const groups: number[] = [];
afterAll(() => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // ended already
    }
  }
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * A newcomer's environment: no npm variables, no node_modules/.bin on PATH; the service's port and data,
 * and the tour receiver's port (free ones: other test runs may share this machine).
 */
const newcomerEnv = (port: number, hooksPort: number) => ({
  PATH: (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((entry) => !entry.includes('node_modules'))
    .join(delimiter),
  HOME: process.env['HOME'] ?? scratch,
  LANG: 'C.UTF-8',
  TMPDIR: scratch,
  PORT: String(port),
  HOOKS_PORT: String(hooksPort),
  DATA_DIR: join(scratch, 'data'),
});

const where = (block: ShellBlock) => `README.md:${block.line}`;
const tail = (text: string) => text.split('\n').slice(-40).join('\n');

/** Runs blocks one by one in one bash, so that variables and functions carry over; reports per block. */
const startSession = (env: Record<string, string>) => {
  const bash = spawn('bash', ['--noprofile', '--norc', '-euo', 'pipefail'], {
    cwd: root,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  }) as ChildProcessWithoutNullStreams;
  groups.push(bash.pid!);
  let output = '';
  let exit: number | null | undefined;
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((waiter) => waiter());
  bash.stdout.on('data', (chunk: Buffer) => ((output += chunk.toString()), wake()));
  bash.stderr.on('data', (chunk: Buffer) => ((output += chunk.toString()), wake()));
  bash.once('exit', (code, signal) => ((exit = code ?? (signal ? 128 : null)), wake()));

  return {
    output: () => output,
    /** Runs one block; resolves with what it printed, or rejects saying where and why it failed. */
    async run(block: ShellBlock, index: number, timeoutMs = 120_000) {
      const file = join(scratch, `block-${index}.sh`);
      writeFileSync(file, `${block.code}\n`);
      const done = `@@readme-block-${index}-done@@`;
      const from = output.length;
      // The block reads nothing from this pipe: its stdin is /dev/null, as a command typed alone would see none.
      bash.stdin.write(`source '${file}' < /dev/null\nprintf '\\n%s\\n' '${done}'\n`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`${where(block)}: still running after ${timeoutMs} ms:\n${tail(output.slice(from))}`),
          );
        }, timeoutMs);
        const check = () => {
          if (output.includes(done, from)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (exit !== undefined) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(
              new Error(
                `${where(block)}: exited ${exit}:\n${block.code}\n--- output\n${tail(output.slice(from))}`,
              ),
            );
          }
        };
        waiters.add(check);
        check();
      });
      const printed = output.slice(from, output.indexOf(done, from));
      output = output.replace(`\n${done}\n`, '\n');
      return printed;
    },
    stop() {
      bash.stdin.end();
    },
  };
};

/** A background block (the service): started in a bash of its own, stopped with SIGTERM at the end. */
const startBackground = (block: ShellBlock, env: Record<string, string>) => {
  const child = spawn('bash', ['--noprofile', '--norc', '-euo', 'pipefail', '-c', block.code], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.push(child.pid!);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    output: () => output,
    ended: () => ended,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
};

const logLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });

/**
 * With README_ON_STAND=true (`npm run test:readme:stand`, as root beside a running `scripts/stand.sh up`), the
 * tour runs against the stand of hosts instead of an embedded service: its router is BASE_URL, the tour's
 * receiver listens at OUTSIDE_ADDRESS (where the stand's hosts reach this namespace), and the admin CLI works
 * on the stand's stores; all taken from `scripts/stand.sh env` (STAND_ID as set). Every block must be
 * answered as on one host.
 */
const onStand = process.env['README_ON_STAND'] === 'true';

/** The assignments `scripts/stand.sh env` prints (export NAME='value'). */
const standEnv = (): Record<string, string> => {
  const printed = spawnSync(join(root, 'scripts/stand.sh'), ['env'], { encoding: 'utf8' });
  if (printed.status !== 0) throw new Error(`scripts/stand.sh env failed:\n${printed.stderr}`);
  return Object.fromEntries(
    [...printed.stdout.matchAll(/^export ([A-Z_]+)='([^']*)'$/gm)].map(([, name, value]) => [name!, value!]),
  );
};

type Background = (block: ShellBlock) => Promise<void>;

/** Runs every block in order in one session: a background block through `background`. */
const runTour = async (session: ReturnType<typeof startSession>, background: Background) => {
  const ran: string[] = [];
  try {
    for (const [index, block] of blocks.entries()) {
      if (block.mode === 'not-run') {
        process.stdout.write(`[readme] ${where(block)} not run: ${block.reason}\n`);
        continue;
      }
      if (block.mode === 'background') {
        await background(block);
        continue;
      }
      const started = performance.now();
      const printed = await session.run(block, index);
      ran.push(`${where(block)} ${Math.round(performance.now() - started)} ms`);
      for (const { pattern, what } of forbiddenOutput) {
        expect(
          printed,
          `${where(block)} printed ${what}:\n${block.code}\n--- output\n${tail(printed)}`,
        ).not.toMatch(pattern);
      }
      for (const text of block.expect) {
        expect(session.output(), `${where(block)}: expected the output to contain ${text}`).toContain(text);
      }
    }
  } finally {
    session.stop();
    process.stdout.write(`[readme] blocks run: ${ran.join(', ')}\n`);
  }
  // Output that came late (stderr, the receiver in the background) counts too.
  for (const { pattern, what } of forbiddenOutput) {
    expect(session.output(), `the README's commands printed ${what}`).not.toMatch(pattern);
  }
};

describe.skipIf(missingTools.length > 0)('README.md, run as written', () => {
  it('has a quick tour to run, and says why any block is not run', () => {
    expect(blocks.filter((block) => block.mode === 'background')).toHaveLength(1);
    expect(blocks.filter((block) => block.mode === 'run').length).toBeGreaterThan(5);
    for (const block of blocks.filter((b) => b.mode === 'not-run'))
      expect(block.reason, where(block)).not.toBe('');
  });

  // One of the two tours is registered, never skipped: npm test runs the fresh clone's, npm run
  // test:readme:stand the stand's.
  if (!onStand)
    it('runs every block on a fresh clone without an error, and the service stops cleanly with SIGTERM', async () => {
      const port = await freePort();
      let hooksPort = await freePort();
      while (hooksPort === port) hooksPort = await freePort();
      const env = newcomerEnv(port, hooksPort);
      let service: ReturnType<typeof startBackground> | undefined;
      await runTour(startSession(env), async (block) => {
        service = startBackground(block, env);
        const started = service;
        await pollUntil(
          `the demo users and GET /health of the service started at ${where(block)}`,
          async () => {
            if (started.ended()) throw new Error(`${where(block)} ended:\n${tail(started.output())}`);
            // As a newcomer would: the tour begins once the first start has printed the demo users,
            // which it does just after the port answers.
            if (!started.output().includes('Demo users were created')) return false;
            try {
              return (await fetch(`http://127.0.0.1:${port}/health`)).status === 200;
            } catch {
              return false;
            }
          },
          { timeoutMs: 90_000, intervalMs: 100 },
        );
      });
      expect(service, 'a background block starting the service').toBeDefined();
      const log = logLines(service!.output());
      expect(log.filter((line) => line.level >= 50)).toEqual([]);
      expect(log.map((line) => line.msg)).toContain(
        'webhooks may reach loopback, private and cloud metadata addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true): for local demos and tests only',
      );
      // As a newcomer stops it: SIGTERM to `npm start` (what the block started), and the service is gone.
      expect(await service!.stop()).toEqual({ code: 0, signal: null });
      expect(logLines(service!.output()).at(-1)?.msg).toBe('embedded service stopped');
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
      // About 15 s alone; more beside the other suites of npm test on two cores.
    }, 240_000);

  if (onStand)
    it('runs every block against the stand of hosts (scripts/stand.sh), answered as on one host', async () => {
      const stand = standEnv();
      const env = {
        ...newcomerEnv(0, await freePort()),
        BASE_URL: stand['BASE_URL']!,
        HOOKS_HOST: stand['OUTSIDE_ADDRESS']!,
        // The admin CLI's stores: the stand's event log and read store, and its personal data key.
        EVENT_LOG_URL: stand['EVENT_LOG_URL']!,
        MONGODB_URL: stand['MONGODB_URL']!,
        MONGODB_DATABASE: stand['MONGODB_DATABASE']!,
        PERSONAL_DATA_KEY_FILE: stand['PERSONAL_DATA_KEY_FILE']!,
        DATA_DIR: stand['DATA_DIR']!,
      };
      let served = false;
      await runTour(startSession(env), async (block) => {
        // The stand's processes serve the tour instead of the block's embedded service.
        process.stdout.write(
          `[readme] ${where(block)} not run: the stand at ${env.BASE_URL} serves instead\n`,
        );
        expect((await fetch(`${env.BASE_URL}/health`)).status).toBe(200);
        served = true;
      });
      expect(served, 'a background block, served by the stand').toBe(true);
    }, 240_000);
});
