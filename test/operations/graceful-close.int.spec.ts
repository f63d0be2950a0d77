import { Agent, request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../infrastructure/http/listen.ts';

/** An app whose GET /slow answers only when the test releases it. */
const slowApp = () => {
  const arrived: (() => void)[] = [];
  const held: (() => void)[] = [];
  const app = express();
  app.get('/fast', (_request, response) => {
    response.send('fast');
  });
  app.get('/slow', (_request, response) => {
    held.push(() => response.send('slow, but complete'));
    for (const notify of arrived.splice(0)) notify();
  });
  return {
    app,
    /** Resolves once a /slow request is being handled. */
    slowArrived: () => new Promise<void>((resolve) => arrived.push(resolve)),
    release: () => held.shift()?.(),
  };
};

type Answer = { response: IncomingMessage; body: string; socket: Socket };
const get = (url: string, path: string, agent: Agent) =>
  new Promise<Answer>((resolve, reject) => {
    const sent = request(`${url}${path}`, { agent }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ response, body, socket: sent.socket! }));
    });
    sent.on('error', reject);
    sent.end();
  });

const connectionRefused = (url: string) =>
  new Promise<string>((resolve) => {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });

const closed = (socket: Socket) =>
  new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

describe('closing the HTTP server (what stop() does first on SIGTERM)', () => {
  const agents: Agent[] = [];
  afterEach(() => {
    for (const agent of agents.splice(0)) agent.destroy();
  });
  const keepAlive = () => {
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    return agent;
  };

  it('refuses new connections, closes idle keep-alive ones, and lets a request in flight finish', async () => {
    const { app, slowArrived, release } = slowApp();
    const server: Listening = await listen(app, 0, '127.0.0.1');

    const idle = await get(server.url, '/fast', keepAlive());
    expect(idle.response.headers.connection).toBe('keep-alive');
    expect(idle.socket.destroyed).toBe(false);

    const arrived = slowArrived();
    const slow = get(server.url, '/slow', keepAlive());
    await arrived;

    let done = false;
    const closing = server.close().then(() => (done = true));
    await closed(idle.socket);
    expect(await connectionRefused(server.url)).toBe('ECONNREFUSED');
    expect(done).toBe(false);

    release();
    const answer = await slow;
    expect(answer.response.statusCode).toBe(200);
    expect(answer.body).toBe('slow, but complete');
    expect(answer.response.headers.connection).toBe('close');
    await closed(answer.socket);
    await closing;
    expect(done).toBe(true);
  });

  it('cuts what is still open after the grace period', async () => {
    const { app, slowArrived } = slowApp();
    const server = await listen(app, 0, '127.0.0.1', { shutdownGraceMs: 50 });
    const arrived = slowArrived();
    const stuck = get(server.url, '/slow', keepAlive()).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    await arrived;
    await server.close();
    expect(await stuck).toBe('ECONNRESET');
  });
});
