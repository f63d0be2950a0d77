import { request as httpRequest } from 'node:http';

export type AnswerFrom = { status: number; headers: Headers; body: string };

/**
 * One request from a client address of our choosing: the connection is bound to `from` (any 127.0.0.0/8
 * address on Linux), so the service sees that address without trusting any proxy header, as it would see
 * clients of its own. `origin` is one of `service.apiOrigins()`, reached without a router in between.
 */
export const requestFrom = (
  from: string,
  url: string,
  {
    method = 'POST',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string },
) =>
  new Promise<AnswerFrom>((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method,
        localAddress: from,
        agent: false,
        headers:
          body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const answerHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (typeof value === 'string') answerHeaders.set(name, value);
            else if (Array.isArray(value)) for (const each of value) answerHeaders.append(name, each);
          }
          resolve({
            status: incoming.statusCode ?? 0,
            headers: answerHeaders,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });

/** A JSON POST from that address. */
export const postJsonFrom = (
  from: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  requestFrom(from, url, {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** A form POST from that address, as a browser sends one (a page elsewhere posting a form here included). */
export const postFormFrom = (
  from: string,
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) =>
  requestFrom(from, url, {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
