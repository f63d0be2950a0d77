import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export type Listening = { server: Server; url: string; close: () => Promise<void> };

/**
 * Listens (port 0 picks a free port) and closes gracefully: no new connection is accepted, idle keep-alive
 * connections are closed at once, requests in flight finish and their responses say `Connection: close`
 * (so their connections end after them), and close resolves once every connection has ended. Whatever is
 * still open after `shutdownGraceMs` is cut, so that a stuck request cannot hold a shutdown forever.
 */
export const listen = (
  app: Express,
  port: number,
  host: string,
  {
    shutdownGraceMs = 10_000,
    maxConnections,
  }: {
    shutdownGraceMs?: number;
    /** Open connections at most: the server closes further ones at once (node:http's maxConnections). */
    maxConnections?: number;
  } = {},
): Promise<Listening> =>
  new Promise((resolve, reject) => {
    const inFlight = new Set<ServerResponse>();
    let closing = false;
    const server = app.listen(port, host, (error?: Error) => {
      if (error) return reject(error);
      const { port: actualPort } = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        server,
        url: `http://${shownHost}:${actualPort}`,
        close: () =>
          new Promise<void>((done, fail) => {
            closing = true;
            for (const response of inFlight) endsConnection(response);
            const cut = setTimeout(() => server.closeAllConnections(), shutdownGraceMs).unref();
            server.close((closeError) => {
              clearTimeout(cut);
              if (closeError) fail(closeError);
              else done();
            });
            server.closeIdleConnections();
          }),
      });
    });
    if (maxConnections !== undefined) server.maxConnections = maxConnections;
    server.on('request', (_request, response: ServerResponse) => {
      if (closing) return endsConnection(response);
      inFlight.add(response);
      response.once('close', () => inFlight.delete(response));
    });
  });

/** The response will carry `Connection: close` (if its headers are not sent yet): its connection ends with it. */
const endsConnection = (response: ServerResponse) => {
  if (!response.headersSent) response.setHeader('Connection', 'close');
};
