import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { Worker } from 'node:worker_threads';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../infrastructure/http/listen.ts';

const linux = process.platform === 'linux';

const helloApp = () => {
  const app = express();
  app.get('/hello', (_request, response) => {
    response.send('hello');
  });
  return app;
};

const portOf = (listening: Listening) => Number(new URL(listening.url).port);

/** A connection of its own (the agent's one socket, kept open) and what became of its GET /hello. */
type Connection = { outcome: string; agent: Agent };

/** GET /hello on a connection of its own that stays open: 'answered STATUS', or the error that ended it. */
const helloOnNewConnection = (url: string) =>
  new Promise<Connection>((resolve) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sent = request(`${url}/hello`, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve({ outcome: `answered ${response.statusCode}`, agent }));
    });
    sent.on('error', (error: NodeJS.ErrnoException) => resolve({ outcome: error.code ?? 'error', agent }));
    sent.end();
  });

/** The TCP connections this thread has open (accepted ones included; listening sockets are another type). */
const openConnections = () =>
  process.getActiveResourcesInfo().filter((type) => type === 'TCPSocketWrap').length;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Opens `count` connections to `port` from a worker thread while this thread's event loop is blocked, so that
 * they all wait in the kernel's accept queue; returns once they are all established.
 */
const burstWhileBlocked = async (port: number, count: number) => {
  const established = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { connect } = require('node:net');
     const { workerData: { port, count, established }, parentPort } = require('node:worker_threads');
     const sockets = [];
     parentPort.once('message', () => {
       for (let i = 0; i < count; i++) {
         const socket = connect(port, '127.0.0.1', () => {
           if (Atomics.add(established, 0, 1) + 1 === count) Atomics.notify(established, 0);
         });
         sockets.push(socket);
       }
     });
     parentPort.once('close', () => sockets.forEach((socket) => socket.destroy()));`,
    { eval: true, workerData: { port, count, established } },
  );
  await new Promise((resolve) => worker.once('online', resolve));
  worker.postMessage('connect');
  // Blocked here (no turn of this loop runs) until the worker's connections are all established.
  while (Atomics.load(established, 0) < count)
    Atomics.wait(established, 0, Atomics.load(established, 0), 5_000);
  return worker;
};

describe('listening on the HTTP port', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const listening = async (options: Parameters<typeof listen>[3]) => {
    const server = await listen(helloApp(), 0, '127.0.0.1', options);
    cleanups.push(() => server.close());
    return server;
  };

  it.runIf(linux)(
    'accepts a burst of connections made while the event loop was busy dozens per turn, not one',
    async () => {
      const burst = 64;
      const acceptedInOneTurn = async (acceptSockets: number) => {
        const server = await listening({ acceptSockets });
        const before = openConnections();
        const worker = await burstWhileBlocked(portOf(server), burst);
        cleanups.push(() => worker.terminate());
        await nextTurn(); // the end of the turn that was blocked
        await nextTurn(); // one whole turn, with its poll for I/O
        const accepted = openConnections() - before;
        // All of them, eventually.
        while (openConnections() - before < burst) await nextTurn();
        return accepted;
      };

      // libuv accepts one connection per listening socket per turn: a busy process, whose turns take tens
      // of ms, kept a burst of 500 clients waiting up to 20 s. Sockets sharing the port accept one each.
      expect(await acceptedInOneTurn(1)).toBe(1);
      expect(await acceptedInOneTurn(64)).toBeGreaterThanOrEqual(16);
    },
  );

  it('refuses a port something already listens on, and lets nothing else share its own', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => taken.close(resolve)));
    const takenPort = (taken.address() as { port: number }).port;
    await expect(listen(helloApp(), takenPort, '127.0.0.1', { acceptSockets: 4 })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });

    const ours = await listening({ acceptSockets: linux ? 4 : 1 });
    await expect(listen(helloApp(), portOf(ours), '127.0.0.1', { acceptSockets: 4 })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
    await expect(listen(helloApp(), portOf(ours), '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect((await helloOnNewConnection(ours.url)).outcome).toBe('answered 200');
  });

  it('bounds open connections over all its listening sockets, closing those beyond unanswered', async () => {
    const server = await listening({ acceptSockets: linux ? 8 : 1, maxConnections: 3 });
    const held: Connection[] = [];
    for (let index = 0; index < 3; index++) held.push(await helloOnNewConnection(server.url));
    cleanups.push(() => held.forEach(({ agent }) => agent.destroy()));
    expect(held.map(({ outcome }) => outcome)).toEqual(['answered 200', 'answered 200', 'answered 200']);

    const beyond: Connection[] = [];
    for (let index = 0; index < 8; index++) beyond.push(await helloOnNewConnection(server.url));
    cleanups.push(() => beyond.forEach(({ agent }) => agent.destroy()));
    expect(beyond.map(({ outcome }) => outcome)).toEqual(Array(8).fill('ECONNRESET'));

    held.pop()!.agent.destroy();
    const again = async (): Promise<string> => {
      const { outcome, agent } = await helloOnNewConnection(server.url);
      cleanups.push(() => agent.destroy());
      // The server sees the freed connection close a moment after the client does.
      return outcome === 'ECONNRESET' ? (await nextTurn(), again()) : outcome;
    };
    expect(await again()).toBe('answered 200');
  });
});
