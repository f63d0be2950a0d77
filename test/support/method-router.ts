import {
  createServer,
  request as httpRequest,
  Agent,
  type ClientRequest,
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
        const bodyCut = !incoming.complete;
        if (bodyCut) dropRestOfBody(incoming, upstream);
        const headers = bodyCut ? closing(answer.rawHeaders) : answer.rawHeaders;
        outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        // A response cut short upstream is cut short here too: the client must not take it as whole.
        pipeline(answer, outgoing).then(
          () => bodyCut && upstream.destroy(),
          () => outgoing.destroy(),
        );
      },
    );
    upstream.on('error', () => {
      dropRestOfBody(incoming, upstream);
      if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    });
    incoming.pipe(upstream);
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

/**
 * An answer that came before the whole request body (a 413, say) ends the client's connection, as nginx does:
 * `Connection: close` instead of the upstream's hop-by-hop headers. The rest of the body is read and dropped
 * here rather than relayed, so that a client that has already queued its next request on the same connection
 * is told to open another instead of waiting on, or being reset by, a connection still busy with the old body.
 */
const closing = (rawHeaders: string[]) => {
  const kept: string[] = [];
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    if (name !== 'connection' && name !== 'keep-alive') kept.push(rawHeaders[index]!, rawHeaders[index + 1]!);
  }
  return [...kept, 'Connection', 'close'];
};

const dropRestOfBody = (incoming: IncomingMessage, upstream: ClientRequest) => {
  incoming.unpipe(upstream);
  incoming.resume();
};
