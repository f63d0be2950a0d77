import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { Express } from 'express';
import { answerClientError, rawProblem } from './client-errors.ts';

export type Listening = { url: string; close: () => Promise<void> };

/**
 * Listening sockets per HTTP port for an API process (HTTP_ACCEPT_SOCKETS' default). libuv (since 1.45,
 * Node 20) accepts one connection per listening socket per turn of the event loop, and a turn under load
 * takes tens of ms: 500 clients connecting at once to a busy process waited up to 20 s in the kernel's
 * accept queue, their requests already sent. Sockets bound with SO_REUSEPORT, among which the kernel spreads
 * new connections, accept that many per turn: with 64, the same burst was accepted within about a second.
 * Linux only: elsewhere Node refuses the option.
 */
export const acceptSocketsOnThisPlatform = process.platform === 'linux' ? 64 : 1;

type ListenOptions = {
  shutdownGraceMs?: number;
  /** Open connections at most, over all the listening sockets: further ones are closed at once. */
  maxConnections?: number;
  /** Listening sockets sharing the port (SO_REUSEPORT when more than one); one unless told. */
  acceptSockets?: number;
  /** Open connections at most from one client address (the peer's): further ones are closed at once. */
  maxConnectionsPerClient?: number;
  /**
   * How long a connection may take to send a request's headers (a connection that sends nothing is closed
   * after this too); Node checks about every second.
   */
  headersTimeoutMs?: number;
  /**
   * `{error_type_base}` of the problem details sent where Node would answer on its own: requests its parser
   * cannot read, an Expect it does not know, CONNECT.
   */
  errorTypeBase?: string;
};

/**
 * Listens (port 0 picks a free port) and closes gracefully: no new connection is accepted, idle keep-alive
 * connections are closed at once, requests in flight finish and their responses say `Connection: close`
 * (so their connections end after them), and close resolves once every connection has ended. Whatever is
 * still open after `shutdownGraceMs` is cut, so that a stuck request cannot hold a shutdown forever.
 */
export const listen = async (
  app: Express,
  port: number,
  host: string,
  {
    shutdownGraceMs = 10_000,
    maxConnections,
    maxConnectionsPerClient,
    acceptSockets = 1,
    headersTimeoutMs = 60_000,
    errorTypeBase,
  }: ListenOptions = {},
): Promise<Listening> => {
  const servers = await listenShared(app, port, host, acceptSockets, headersTimeoutMs);
  if (errorTypeBase !== undefined) {
    for (const server of servers) answerWhereNodeWould(server, errorTypeBase);
  }
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  let open = 0;
  const openByClient = new Map<string, number>();
  const awaitingFirstRequest = new WeakMap<Socket, NodeJS.Timeout>();
  for (const server of servers) {
    server.on('connection', (socket) => {
      if (maxConnections !== undefined && open >= maxConnections) return socket.destroy();
      const client = socket.remoteAddress ?? 'unknown';
      const fromClient = openByClient.get(client) ?? 0;
      if (maxConnectionsPerClient !== undefined && fromClient >= maxConnectionsPerClient) {
        return socket.destroy();
      }
      open++;
      openByClient.set(client, fromClient + 1);
      // Node keeps a connection that never sends a whole request; this one has until its first request.
      const silent = setTimeout(() => socket.destroy(), headersTimeoutMs);
      awaitingFirstRequest.set(socket, silent);
      socket.once('close', () => {
        clearTimeout(silent);
        open--;
        const left = (openByClient.get(client) ?? 1) - 1;
        if (left <= 0) openByClient.delete(client);
        else openByClient.set(client, left);
      });
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const silent = awaitingFirstRequest.get(request.socket);
      if (silent !== undefined) {
        clearTimeout(silent);
        awaitingFirstRequest.delete(request.socket);
      }
      if (closing) return endsConnection(response);
      inFlight.add(response);
      response.once('close', () => inFlight.delete(response));
    });
  }
  const { port: actualPort } = servers[0]!.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${actualPort}`,
    close: async () => {
      closing = true;
      for (const response of inFlight) endsConnection(response);
      const cut = setTimeout(() => {
        for (const server of servers) server.closeAllConnections();
      }, shutdownGraceMs).unref();
      try {
        await Promise.all(servers.map(closeServer));
      } finally {
        clearTimeout(cut);
      }
    },
  };
};

/**
 * `count` HTTP servers of `app` on one port. A plain (exclusive) bind comes first: it fails with EADDRINUSE
 * whatever already listens there, SO_REUSEPORT or not (so a second copy of the service cannot silently
 * share the port), and it is how port 0 picks a port that is really free. On port 0 another process may
 * take the chosen port before it is bound again: then another is chosen.
 */
const listenShared = async (
  app: Express,
  port: number,
  host: string,
  count: number,
  headersTimeoutMs: number,
): Promise<Server[]> => {
  const serve = () =>
    createServer(
      {
        headersTimeout: headersTimeoutMs,
        // A request's headers and body, whole: what a refused request still sends is read and dropped
        // until then, and a connection that stalls is closed then.
        requestTimeout: 2 * headersTimeoutMs,
        connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs),
        // Checked by the app, which answers problem details (Node would answer a bare 400).
        requireHostHeader: false,
      },
      app,
    );
  if (count <= 1) return [await listenOne(serve(), { port, host })];
  for (let attempt = 1; ; attempt++) {
    const chosen = await freeToBind(port, host);
    const servers: Server[] = [];
    try {
      for (let index = 0; index < count; index++)
        servers.push(await listenOne(serve(), { port: chosen, host, reusePort: true }));
      return servers;
    } catch (error) {
      await Promise.all(servers.map(closeServer));
      const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!(taken && port === 0 && attempt < 3)) throw error;
    }
  }
};

/**
 * Rejects as listening would (EADDRINUSE, EACCES, EADDRNOTAVAIL) when the port cannot be had, so that a
 * process can find out before it opens or makes anything: a start on a taken port then leaves no trace
 * (no store, no demo catalogue, no demo users). Port 0 can always be had.
 */
export const checkPortAvailable = async (port: number, host: string): Promise<void> => {
  if (port !== 0) await freeToBind(port, host);
};

/** Binds and closes a plain listener: the port it got (port 0 picks), or EADDRINUSE. */
const freeToBind = (port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => {
      const { port: bound } = probe.address() as AddressInfo;
      probe.close(() => resolve(bound));
    });
  });

const listenOne = (server: Server, options: { port: number; host: string; reusePort?: boolean }) =>
  new Promise<Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve(server);
    });
  });

const closeServer = (server: Server) =>
  new Promise<void>((resolve, reject) => {
    if (!server.listening) return resolve();
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });

/**
 * Where Node would answer on its own with a bare status line or no answer at all, problem details: a
 * request its parser cannot read (400, 408, 413, 431), an Expect other than 100-continue (417), CONNECT
 * (405: nothing here is a proxy).
 */
const answerWhereNodeWould = (server: Server, errorTypeBase: string) => {
  server.on('clientError', answerClientError(errorTypeBase));
  server.on('checkExpectation', (_request, response: ServerResponse) => {
    response.socket?.end(
      rawProblem(errorTypeBase, 'expectation-failed', 'Only Expect: 100-continue is understood here.'),
    );
  });
  server.on('connect', (_request, socket: Socket) => {
    socket.end(
      rawProblem(errorTypeBase, 'method-not-allowed', 'CONNECT is not supported: this is not a proxy.', {
        Allow: 'GET, HEAD, POST, PATCH, DELETE, OPTIONS',
      }),
    );
  });
};

/** The response will carry `Connection: close` (if its headers are not sent yet): its connection ends with it. */
const endsConnection = (response: ServerResponse) => {
  if (!response.headersSent) response.setHeader('Connection', 'close');
};
