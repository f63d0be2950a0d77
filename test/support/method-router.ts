import {
  createServer,
  request as httpRequest,
  Agent,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';

/**
 * What users put in front of the distributed mode (README): one address, reads (GET, HEAD) to the query
 * API, everything else to the command API. A transparent pass-through: status, headers and bytes as the
 * service answered them, so the HTTP suite sees exactly what the services send.
 */
export const startMethodRouter = async (targets: { command: () => string; query: () => string }) => {
  const agent = new Agent({ keepAlive: true });
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const base =
      incoming.method === 'GET' || incoming.method === 'HEAD' ? targets.query() : targets.command();
    const upstream = httpRequest(
      new URL(incoming.url ?? '/', base),
      { method: incoming.method, headers: incoming.headers, agent },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        pipeline(answer, outgoing).catch(() => outgoing.destroy());
      },
    );
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    });
    pipeline(incoming, upstream).catch(() => upstream.destroy());
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
