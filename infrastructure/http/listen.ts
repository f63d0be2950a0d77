import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export type Listening = { server: Server; url: string; close: () => Promise<void> };

/** Listens (port 0 picks a free port) and closes gracefully: no new connections, in-flight requests finish. */
export const listen = (app: Express, port: number, host: string): Promise<Listening> =>
  new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => {
      if (error) return reject(error);
      const { port: actualPort } = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        server,
        url: `http://${shownHost}:${actualPort}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((closeError) => (closeError ? fail(closeError) : done()));
            server.closeIdleConnections();
          }),
      });
    });
  });
