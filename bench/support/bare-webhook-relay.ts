// The baseline of the webhook benchmark: a bare node:http server doing the least the same path needs. It
// reads and parses the POSTed JSON, answers 201, then POSTs a body of the same size to every receiver
// over keep-alive connections, as the dispatcher does after the log, the relay and the retry state.
// Run: node bench/support/bare-webhook-relay.ts <receiver URL>...; prints its URL on stdout.
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const receivers = process.argv.slice(2).map((url) => new URL(url));
const agent = new Agent({ keepAlive: true });

const server = createServer((incoming, response) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const order = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    response.writeHead(201, { 'Content-Type': 'application/json' }).end('{}');
    const body = JSON.stringify({ type: 'order.created', timestamp: new Date().toISOString(), data: order });
    for (const receiver of receivers) {
      const outgoing = request(receiver, {
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      });
      outgoing.on('response', (answer) => answer.resume());
      outgoing.end(body);
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  agent.destroy();
  server.close();
});
