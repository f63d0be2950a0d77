// The baseline: a bare node:http server doing the least the same request needs. It answers one path with
// the exact bytes and headers the service sent for it, and 304 when If-None-Match equals the ETag; for a
// POST fixture it first reads the body and parses it as JSON.
// Run: node bench/support/bare-server.ts <fixture.json>; prints its URL on stdout.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Fixture = {
  path: string;
  method?: 'GET' | 'POST';
  status: number;
  headers: Record<string, string>;
  body: string;
};
const fixture = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Fixture;
const body = Buffer.from(fixture.body, 'base64');
const notModifiedHeaders = Object.fromEntries(
  Object.entries(fixture.headers).filter(([name]) => !['content-type', 'content-length'].includes(name)),
);

const server = createServer((request, response) => {
  if (request.url !== fixture.path) {
    response.writeHead(404).end();
    return;
  }
  if (fixture.method === 'POST') {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        response.writeHead(400).end();
        return;
      }
      response.writeHead(fixture.status, fixture.headers).end(body);
    });
    return;
  }
  if (request.headers['if-none-match'] === fixture.headers['etag']) {
    response.writeHead(304, notModifiedHeaders).end();
    return;
  }
  response.writeHead(fixture.status, fixture.headers).end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => server.close());
