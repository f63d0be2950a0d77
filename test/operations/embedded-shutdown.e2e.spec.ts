import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../../embedded/main.ts', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'embedded-shutdown-'));
const agent = new Agent({ keepAlive: true });
afterAll(() => {
  agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

type Answer = { response: IncomingMessage; body: string };
const answerOf = (sent: ClientRequest) =>
  new Promise<Answer>((resolve, reject) => {
    sent.once('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ response, body }));
    });
    sent.once('error', reject);
  });

const connects = (url: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('the embedded default on SIGTERM', () => {
  it('finishes the request in flight, refuses new connections, closes keep-alive ones, and exits 0', async () => {
    const service = spawn(process.execPath, [main], {
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, SEED_DEMO_USERS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => service.once('exit', resolve));
    const log: Record<string, unknown>[] = [];
    const listening = new Promise<string>((resolve) => {
      createInterface({ input: service.stdout }).on('line', (line) => {
        const entry = JSON.parse(line) as { msg: string; url?: string };
        log.push(entry);
        if (entry.msg === 'embedded service listening') resolve(entry.url!);
      });
    });
    const url = await listening;

    // An idle keep-alive connection.
    const idle = request(`${url}/health`, { agent });
    idle.end();
    const idleAnswer = await answerOf(idle);
    expect(idleAnswer.response.headers.connection).toBe('keep-alive');
    const idleSocket = idle.socket as Socket;
    // Closed by the shutdown, well before Node's keep-alive timeout (5 s) would close it anyway.
    const idleClosed = new Promise<number>((resolve) =>
      idleSocket.once('close', () => resolve(performance.now())),
    );

    // A request in flight: its headers are in (the server said 100 Continue), its body not yet.
    const body = new URLSearchParams({
      grant_type: 'password',
      username: 'nobody@shop.example',
      password: 'x',
    });
    const inFlight = request(`${url}/auth/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': Buffer.byteLength(body.toString()),
        Expect: '100-continue',
      },
    });
    const continued = new Promise<void>((resolve) => inFlight.once('continue', resolve));
    const inFlightAnswer = answerOf(inFlight);
    inFlight.flushHeaders();
    await continued;

    const signalled = performance.now();
    service.kill('SIGTERM');
    expect((await idleClosed) - signalled).toBeLessThan(4000);
    await expect.poll(() => connects(url), { timeout: 10_000, interval: 20 }).toBe(false);

    inFlight.end(body.toString());
    const { response, body: answer } = await inFlightAnswer;
    expect(response.statusCode).toBe(401);
    expect(response.headers.connection).toBe('close');
    expect(JSON.parse(answer)).toMatchObject({ status: 401, instance: '/auth/token' });

    expect(await exited).toBe(0);
    const messages = log.map((entry) => entry['msg']);
    expect(messages).toContain('shutting down');
    expect(messages.at(-1)).toBe('embedded service stopped');
    expect(log.filter((entry) => entry['path'] === '/auth/token' && entry['status'] === 401)).toHaveLength(1);
  });
});
