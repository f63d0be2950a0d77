// The stand's `via` host (scripts/stand.sh): a TCP forwarder on the path from the API hosts to the stores,
// there to add delay, since this kernel has no netem. Every chunk a client sends is held `delay` ms before
// it goes on to the store (so each round trip gains that much, as netem on one interface would add); the
// answers come back at once. Order is kept: a chunk never overtakes an earlier one on its connection.
//
//   node scripts/stand/forwarder.ts CONTROL_ADDRESS:PORT LISTEN_ADDRESS:PORT=TARGET_HOST:PORT...
//   curl -X PUT --data 100 http://CONTROL/delay     # 100 ms from now on, on every connection; 0 for none
//   curl http://CONTROL/                            # {"delayMs":..,"connections":..,"forwarded":..}
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';

type Endpoint = { host: string; port: number };

const endpointOf = (text: string): Endpoint => {
  const match = /^(.+):(\d+)$/.exec(text);
  if (!match) throw new Error(`not host:port: ${text}`);
  return { host: match[1]!, port: Number(match[2]) };
};

/** How long a store may take to accept the forwarded connection before the client's is closed. */
const upstreamConnectTimeoutMs = 2000;

let delayMs = 0;
let connections = 0;
let forwarded = 0;

/** Writes what `from` sends to `to`, each chunk `delayMs` after it arrived (0: at once), in order. */
const pipeDelayed = (from: Socket, to: Socket) => {
  const held: { due: number; chunk: Buffer }[] = [];
  let timer: NodeJS.Timeout | null = null;
  let ended = false;
  const flush = () => {
    timer = null;
    const now = Date.now();
    while (held.length > 0 && held[0]!.due <= now) {
      if (!to.write(held.shift()!.chunk)) from.pause();
    }
    if (held.length > 0) timer = setTimeout(flush, held[0]!.due - now);
    else if (ended) to.end();
  };
  from.on('data', (chunk: Buffer) => {
    forwarded += chunk.length;
    if (delayMs === 0 && held.length === 0) {
      if (!to.write(chunk)) from.pause();
      return;
    }
    held.push({ due: Date.now() + delayMs, chunk });
    timer ??= setTimeout(flush, delayMs);
  });
  to.on('drain', () => from.resume());
  from.on('end', () => {
    ended = true;
    if (held.length === 0) to.end();
  });
  return () => {
    if (timer) clearTimeout(timer);
  };
};

const forward = (listen: Endpoint, target: Endpoint) =>
  createServer((client) => {
    connections++;
    const store = connect({ host: target.host, port: target.port });
    store.setTimeout(upstreamConnectTimeoutMs, () => store.destroy(new Error('connect timeout')));
    store.once('connect', () => store.setTimeout(0));
    client.setNoDelay(true);
    store.setNoDelay(true);
    const stopClient = pipeDelayed(client, store);
    store.on('data', (chunk: Buffer) => {
      if (!client.write(chunk)) store.pause();
    });
    client.on('drain', () => store.resume());
    store.on('end', () => client.end());
    const close = () => {
      stopClient();
      client.destroy();
      store.destroy();
    };
    client.once('close', close);
    store.once('close', close);
    client.on('error', close);
    store.on('error', close);
    client.once('close', () => connections--);
  }).listen(listen.port, listen.host);

const control = (endpoint: Endpoint) =>
  createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.method === 'PUT' && request.url === '/delay' && /^\d{1,5}$/.test(body.trim())) {
        delayMs = Number(body.trim());
      } else if (request.method !== 'GET' || request.url !== '/') {
        response.writeHead(400).end('GET / or PUT /delay with a number of ms\n');
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(`${JSON.stringify({ delayMs, connections, forwarded })}\n`);
    });
  }).listen(endpoint.port, endpoint.host);

const [controlAddress, ...routes] = process.argv.slice(2);
if (!controlAddress || routes.length === 0) {
  process.stderr.write('usage: forwarder.ts CONTROL_HOST:PORT LISTEN_HOST:PORT=TARGET_HOST:PORT...\n');
  process.exit(2);
}
control(endpointOf(controlAddress));
for (const route of routes) {
  const [listen, target] = route.split('=');
  forward(endpointOf(listen!), endpointOf(target!));
}
process.stdout.write(`forwarding ${routes.join(' ')}; control on ${controlAddress}\n`);
