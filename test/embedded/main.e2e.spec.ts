import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../../embedded/main.ts', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'embedded-main-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const run = (env: Record<string, string>) =>
  spawn(process.execPath, [main], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });

describe('the embedded default as a process (npm start)', () => {
  it('starts with defaults, answers its liveness probe, and stops cleanly on SIGTERM', async () => {
    const service = run({ PORT: '0', DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://shop.example' });
    const exited = new Promise<number | null>((resolve) => service.once('exit', resolve));
    const logs = createInterface({ input: service.stdout })[Symbol.asyncIterator]();
    const firstLine = JSON.parse((await logs.next()).value as string) as { msg: string; url: string };
    expect(firstLine.msg).toBe('embedded service listening');

    const health = await fetch(`${firstLine.url}/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(await health.json()).toEqual({ status: 'ok' });

    const missing = await fetch(`${firstLine.url}/no-such-thing`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await missing.json()).toEqual({
      type: 'https://shop.example/problems/not-found',
      title: 'Not Found',
      status: 404,
      detail: 'No resource at /no-such-thing',
      instance: '/no-such-thing',
    });

    service.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(dataDir, 'events.sqlite'))).toBe(true);
  });

  it('refuses to start on bad configuration, naming the variable', async () => {
    const service = run({ PORT: 'not-a-port', DATA_DIR: dataDir });
    const stderr: string[] = [];
    service.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const code = await new Promise<number | null>((resolve) => service.once('exit', resolve));
    expect(code).toBe(78);
    expect(stderr.join('')).toMatch(/Invalid configuration:\n {2}PORT: /);
  });
});
