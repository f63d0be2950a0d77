// The quick tour's webhook receiver: checks each delivery's signature (Standard Webhooks) and prints it.
// WEBHOOK_SECRET=whsec_... node examples/webhook-receiver.mjs [port [address]]
//   (default 4499, on 127.0.0.1, which localhost names too)
import { createServer } from 'node:http';
import { argv, env, stdout } from 'node:process';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(env.WEBHOOK_SECRET);
const port = Number(argv[2] ?? 4499);
const address = argv[3] === undefined || argv[3] === 'localhost' ? '127.0.0.1' : argv[3];
const say = (line) => stdout.write(`receiver: ${line}\n`);
createServer(async (request, response) => {
  let body = '';
  for await (const chunk of request) body += chunk;
  try {
    const { type, data } = webhook.verify(body, request.headers); // throws unless signed with the secret
    say(`verified ${type}${data.to ? ` (now ${data.to})` : ''}`);
    response.writeHead(204).end();
  } catch (error) {
    say(`signature not verified (${error.message})`);
    response.writeHead(401).end();
  }
}).listen(port, address, () => say(`listening on http://${address}:${port}/`));
