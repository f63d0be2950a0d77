import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedPurge = { method: string; path: string; keys: string[] };

/**
 * A cache's purge endpoint on loopback, as CACHE_PURGE_URLS names one: records each request (method, path,
 * the keys of xkey-purge) and answers 200, or each status of `failNext` in turn first.
 */
export const startPurgeReceiver = async () => {
  const received: ReceivedPurge[] = [];
  const failNext: number[] = [];
  const server = createServer((request, response) => {
    received.push({
      method: request.method ?? '',
      path: request.url ?? '',
      keys: String(request.headers['xkey-purge'] ?? '')
        .split(' ')
        .filter(Boolean),
    });
    request.resume();
    response.writeHead(failNext.shift() ?? 200).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    received,
    /** Answers the next requests with these statuses. */
    failNext: (...statuses: number[]) => failNext.push(...statuses),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};

export type PurgeReceiver = Awaited<ReturnType<typeof startPurgeReceiver>>;
