import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, pollUntil } from '../support/embedded-child.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
/** Process groups this test started: whatever of them is left (a service orphaned by npm) is killed at the end. */
const groups: number[] = [];
afterAll(() => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // the group has ended: nothing left
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const answers = async (url: string) => {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
};

describe('npm start as a supervisor runs it', () => {
  it('every start script makes node the process that receives signals (exec)', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const starts = Object.entries(scripts).filter(([name]) => name === 'start' || name.startsWith('start:'));
    expect(starts.map(([name]) => name)).toEqual(
      expect.arrayContaining(['start', 'start:command-api', 'start:query-api', 'start:projections']),
    );
    for (const [name, command] of starts) expect(command, name).toMatch(/^exec node \S+\.ts$/);
  });

  it('SIGTERM to the PID of `npm start` stops the service cleanly, and npm exits 0', async () => {
    const port = await freePort();
    // npm from PATH, as a shell, systemd or CI would run it; its own banner goes to stdout.
    const npm = spawn('npm', ['start'], {
      cwd: root,
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, SEED_DEMO_USERS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own, as under a supervisor: afterAll can end all of it if this test fails.
      detached: true,
    });
    groups.push(npm.pid!);
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      npm.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const health = `http://127.0.0.1:${port}/health`;
    await pollUntil(`${health} (npm start)`, () => answers(health), { timeoutMs: 60_000 });

    npm.kill('SIGTERM');
    expect(await exited, output).toEqual({ code: 0, signal: null });
    // Nothing is left answering on the port: the service itself stopped, not only npm.
    expect(await answers(health)).toBe(false);
    const log = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(log).toContain('shutting down');
    expect(log.at(-1)).toBe('embedded service stopped');
  });
});
