import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedWebhook = {
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body: `{type, timestamp, data}`. */
  json: { type: string; timestamp: string; data: Record<string, unknown> };
  /** How this request was answered. */
  answeredWith: number | 'nothing';
};

/** How the receiver answers the n-th request (0-based): a status, with headers, or not at all. */
export type Answer =
  { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

/**
 * A real webhook receiver on loopback: records every request and answers as the test says (200 unless
 * told otherwise). `waitFor` resolves once the received requests satisfy a condition.
 */
export const startWebhookReceiver = async (
  answer: (request: number, body: string) => Answer = () => ({ status: 200 }),
) => {
  const received: ReceivedWebhook[] = [];
  const hanging: ServerResponse[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const reply = answer(received.length, body);
      received.push({
        headers: request.headers,
        body,
        json: JSON.parse(body) as ReceivedWebhook['json'],
        answeredWith: reply === 'hang' ? 'nothing' : reply.status,
      });
      if (reply === 'hang') hanging.push(response);
      else {
        const send = () => response.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      }
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    /** Resolves with the requests once `done(requests)` holds; rejects after the timeout. */
    waitFor(done: (requests: readonly ReceivedWebhook[]) => boolean, timeoutMs = 10_000) {
      return new Promise<ReceivedWebhook[]>((resolve, reject) => {
        const check = () => {
          if (!done(received)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve([...received]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver got ${received.length} requests, not what the test waited for`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
