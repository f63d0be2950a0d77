// The stand's `hooks` host (scripts/stand.sh): a webhook receiver that keeps every delivery it was sent, for
// a checker to read back. It verifies nothing: the checker does, with the secrets it was given.
//
//   node scripts/stand/receiver.ts LISTEN_HOST:PORT RECORDS_FILE
//   POST <any path>            answered 200 (or as PUT /statuses says), recorded as
//                              {index, receivedAt, path, headers, body}: body the raw text, headers as received
//   GET /received?from=N       the records from index N on, as a JSON array
//   PUT /statuses              {"/hooks/a": 500, ...}: answer POSTs to those paths so from now on ({} resets)
// Records are appended to RECORDS_FILE (JSON lines) and read back from it at start, so a restarted
// receiver keeps its indexes.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

type Received = {
  index: number;
  receivedAt: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
};

const [listenAddress, recordsFile] = process.argv.slice(2);
const listen = /^(.+):(\d+)$/.exec(listenAddress ?? '');
if (!listen || !recordsFile) {
  process.stderr.write('usage: receiver.ts LISTEN_HOST:PORT RECORDS_FILE\n');
  process.exit(2);
}

const received: Received[] = existsSync(recordsFile)
  ? readFileSync(recordsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Received)
  : [];
let statuses: Record<string, number> = {};

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const json = (response: ServerResponse, status: number, value: unknown) => {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(value));
};

const handle = async (request: IncomingMessage, response: ServerResponse) => {
  const url = new URL(request.url ?? '/', 'http://receiver');
  const body = await readBody(request);
  if (request.method === 'GET' && url.pathname === '/received') {
    const from = Number(url.searchParams.get('from') ?? 0);
    if (!Number.isInteger(from) || from < 0) return json(response, 400, { error: 'from: an index >= 0' });
    return json(response, 200, received.slice(from));
  }
  if (request.method === 'PUT' && url.pathname === '/statuses') {
    statuses = JSON.parse(body) as Record<string, number>;
    return json(response, 200, statuses);
  }
  if (request.method !== 'POST') return json(response, 405, { error: 'POST a webhook, or GET /received' });
  const record: Received = {
    index: received.length,
    receivedAt: new Date().toISOString(),
    path: url.pathname,
    headers: request.headers,
    body,
  };
  received.push(record);
  appendFileSync(recordsFile, `${JSON.stringify(record)}\n`);
  response.writeHead(statuses[url.pathname] ?? 200).end();
};

createServer((request, response) => {
  handle(request, response).catch((error: unknown) => json(response, 400, { error: String(error) }));
}).listen(Number(listen[2]), listen[1], () => {
  process.stdout.write(`receiving webhooks on http://${listenAddress}/ (${received.length} kept)\n`);
});
