import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../../embedded/main.ts', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'embedded-main-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

let demoCredentials = '';
let placedOrder = { path: '', body: '', auth: {} as Record<string, string> };

/** Reads the JSON log until the line saying where the service listens. */
const listeningUrl = async (logs: AsyncIterator<string>) => {
  for (let line = await logs.next(); !line.done; line = await logs.next()) {
    const entry = JSON.parse(line.value) as { msg: string; url?: string };
    if (entry.msg === 'embedded service listening') return entry.url!;
  }
  throw new Error('the service ended without listening');
};

const run = (env: Record<string, string>) =>
  spawn(process.execPath, [main], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });

describe('the embedded default as a process (npm start)', () => {
  it('starts with defaults, answers its liveness probe, and stops cleanly on SIGTERM', async () => {
    const service = run({ PORT: '0', DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://shop.example' });
    let stderr = '';
    service.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => service.once('exit', resolve));
    const logs = createInterface({ input: service.stdout })[Symbol.asyncIterator]();
    const firstLine = { url: await listeningUrl(logs) };

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

    // First start: one demo user per role, passwords shown once on stderr, never in the JSON log.
    for (const email of ['customer@', 'customer2@', 'staff@', 'auditor@', 'admin@']) {
      expect(stderr).toContain(`  ${email}example.com`);
    }
    demoCredentials = stderr;
  });

  it('keeps its users across a restart, shows no new credentials, and the demo passwords work', async () => {
    const service = run({ PORT: '0', DATA_DIR: dataDir });
    let stderr = '';
    service.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => service.once('exit', resolve));
    const logs = createInterface({ input: service.stdout })[Symbol.asyncIterator]();
    const url = await listeningUrl(logs);

    const [, password] = /staff@example\.com +(\S+)/.exec(demoCredentials)!;
    const login = await fetch(`${url}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: 'staff@example.com', password }),
    });
    expect(login.status).toBe(200);

    // An order placed now, acknowledged with 201, must survive the SIGTERM below.
    const auth = {
      Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}`,
    };
    const address = await fetch(`${url}/users/me/addresses`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ street: '2 Quay St', city: 'Dublin', postalCode: 'D02', country: 'IE' }),
    });
    const placed = await fetch(`${url}/orders`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        items: [{ productId: '1001', quantity: 1 }],
        shippingAddressId: ((await address.json()) as { id: string }).id,
      }),
    });
    expect(placed.status).toBe(201);
    placedOrder = {
      path: placed.headers.get('location')!,
      body: await placed.text(),
      auth: { ...auth, 'Consistency-Token': placed.headers.get('consistency-token')! },
    };

    service.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).not.toContain('Demo users were created');
  });

  it('still has the acknowledged order after the restart', async () => {
    const service = run({ PORT: '0', DATA_DIR: dataDir });
    const exited = new Promise<number | null>((resolve) => service.once('exit', resolve));
    const logs = createInterface({ input: service.stdout })[Symbol.asyncIterator]();
    const url = await listeningUrl(logs);
    const read = await fetch(`${url}${placedOrder.path}`, { headers: placedOrder.auth });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe(placedOrder.body);
    service.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('fails on a taken port with one line naming it (exit 69), before making anything', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'embedded-port-taken-'));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const service = run({ PORT: String(port), DATA_DIR: fresh, SEED_DEMO_USERS: 'true' });
      let stderr = '';
      service.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => service.once('exit', resolve));
      expect(code).toBe(69);
      expect(stderr).toBe(
        `failed to start: cannot listen on 127.0.0.1:${port}: the port is in use (set PORT)\n`,
      );
      // Nothing was seeded or made: no event log, no read store (demo catalogue, demo users), no keys.
      expect(readdirSync(fresh)).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      // The next start, on a port that is free, is the first to make the demo users and shows them.
      const service = run({ PORT: '0', DATA_DIR: fresh, SEED_DEMO_USERS: 'true' });
      let stderr = '';
      service.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => service.once('exit', resolve));
      await listeningUrl(createInterface({ input: service.stdout })[Symbol.asyncIterator]());
      service.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toContain('Demo users were created');
      expect(stderr).toMatch(/ {2}admin@example\.com +\S+ +admin/);
      rmSync(fresh, { recursive: true, force: true });
    }
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
