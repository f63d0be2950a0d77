import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Receipt } from './webhook-check.ts';

/**
 * The receiver host's interface on loopback, for running the load and the checker without a stand: every
 * POST recorded, `GET /received?from=N` lists them from the N-th.
 */
export const startRecordingReceiver = async () => {
  const receipts: Receipt[] = [];
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.startsWith('/received')) {
      const from = Number(new URL(request.url, 'http://receiver').searchParams.get('from') ?? 0);
      response
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify(receipts.slice(from)));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receipts.push({
        index: receipts.length,
        receivedAt: new Date().toISOString(),
        path: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
