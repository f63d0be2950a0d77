import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'entry-points-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs an entry point to its end with only the given environment (and PATH). */
const run = (entryPoint: string, args: string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [join(root, entryPoint), ...args], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });

const services = [
  ['embedded/main.ts', 'DATA_DIR'],
  ['command-api/main.ts', 'MONGODB_URL'],
  ['query-api/main.ts', 'CONSISTENCY_TIMEOUT_MS'],
  ['projections/main.ts', 'KAFKA_BROKERS'],
  ['webhook-dispatcher/main.ts', 'WEBHOOK_LEASE_MS'],
] as const;

describe.concurrent('the entry points', () => {
  it.each(services)('%s --help lists its variables and starts nothing', async (entryPoint, own) => {
    const dataDir = join(scratch, entryPoint.split('/')[0]!);
    // A bad value too: --help does not read the environment.
    const { code, stdout } = await run(entryPoint, ['--help'], { PORT: 'not-a-port', DATA_DIR: dataDir });
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: node ${entryPoint} \\[--help\\]`));
    expect(stdout).toMatch(/^ {2}PORT +HTTP port to listen on; 0 picks a free one\. \(default \d+\)$/m);
    expect(stdout).toMatch(/^ {2}LOG_LEVEL +.+ \(default info\)$/m);
    expect(stdout).toMatch(new RegExp(`^ {2}${own} +\\S`, 'm'));
    expect(existsSync(dataDir)).toBe(false);
  });

  it.each(services)('%s refuses a bad variable with exit code 78, naming it', async (entryPoint) => {
    const { code, stderr } = await run(entryPoint, [], {
      PORT: 'not-a-port',
      DATA_DIR: join(scratch, 'refused'),
    });
    expect(code).toBe(78);
    expect(stderr).toMatch(/^Invalid configuration:\n(?: {2}.+\n)* {2}PORT: /);
    expect(stderr).not.toContain('not-a-port');
  });

  it('the admin CLI lists its commands and variables with --help, and refuses a bad variable', async () => {
    const help = await run('cli/admin.ts', ['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('user:add --email E');
    expect(help.stdout).toMatch(/^ {2}DATA_DIR +.+ \(default \.\/data\)$/m);
    expect(help.stdout).toMatch(/^ {2}MONGODB_URL +.+ \(optional\)$/m);

    const refused = await run('cli/admin.ts', ['user:list'], {
      DATA_DIR: join(scratch, 'admin'),
      CATALOG_CURRENCY: 'not-a-currency',
    });
    expect(refused.code).toBe(78);
    expect(refused.stderr).toMatch(/^ {2}CATALOG_CURRENCY: /m);
  });

  it.each([
    ['command-api/main.ts', []],
    ['cli/admin.ts', ['events:export']],
  ] as const)(
    '%s refuses a malformed EVENTSTORE_URL with exit code 78, naming it, never its value',
    async (entryPoint, args) => {
      const { code, stderr } = await run(entryPoint, [...args], {
        DATA_DIR: join(scratch, 'eventstore-url'),
        EVENTSTORE_URL: 'esdb://admin:s3cret-pw@eventstore:no-port?tls=false',
      });
      expect(code).toBe(78);
      expect(stderr).toMatch(/^ {2}EVENTSTORE_URL: must be an EventStoreDB connection string.*port number/m);
      expect(stderr).not.toContain('s3cret');
    },
  );
});
