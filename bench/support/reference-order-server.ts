// The reference of issue 5's POST /orders goal ("a bare Express 5 route that verifies an RS256 token,
// validates with zod and inserts one row reaches about 9,000 here"): Express 5, jsonwebtoken verifying an
// RS256 bearer token on every request, the service's own zod schema of the body, one INSERT into a node:sqlite
// file in WAL mode with synchronous=NORMAL (as the service's log), and the inserted order answered as JSON.
// Its own key signs the token it writes to <token file>; the benchmark sends that one.
// Run: node bench/support/reference-order-server.ts <token file> <data dir>; prints its URL on stdout.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import express from 'express';
import jwt from 'jsonwebtoken';
import { resolveOrderRequest } from '../../command-api/orders/place-order.ts';

const [tokenFile, dataDir] = process.argv.slice(2) as [string, string];
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const audience = 'order-service';
writeFileSync(
  tokenFile,
  jwt.sign({ roles: ['customer'] }, privateKey, {
    algorithm: 'RS256',
    subject: randomUUID(),
    audience,
    expiresIn: '1h',
  }),
);

const db = new DatabaseSync(join(dataDir, 'reference.sqlite'));
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA synchronous = NORMAL');
db.exec('CREATE TABLE orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, body TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO orders (id, customer_id, body) VALUES (?, ?, ?)');

const fromMemory = {
  catalog: {
    getProduct: async (id: number) => ({
      id,
      name: `Product ${id}`,
      priceMinor: 1999,
      updatedAt: '2026-11-01T00:00:00.000Z',
      categoryId: 'cups',
      stock: null,
    }),
  },
  users: {
    findAddress: async (_userId: string, id: string) => ({
      id,
      street: '1 Rue de Rivoli',
      city: 'Paris',
      postalCode: '75001',
      country: 'FR',
      createdAt: '2026-11-01T00:00:00.000Z',
    }),
  },
};

const app = express();
app.disable('x-powered-by');
app.post('/orders', express.json(), async (request, response) => {
  const token = /^Bearer (.+)$/.exec(request.get('authorization') ?? '')?.[1];
  let customerId: string;
  try {
    customerId = (jwt.verify(token ?? '', publicKey, { algorithms: ['RS256'], audience }) as { sub: string })
      .sub;
  } catch {
    response.status(401).json({ status: 401 });
    return;
  }
  // The project's order schema, its lookups answered from memory (any product, any address).
  const parsed = await resolveOrderRequest(fromMemory, customerId, request.body);
  if (!parsed.ok) {
    response.status(400).json({ status: 400, errors: parsed.errors });
    return;
  }
  const order = { id: randomUUID(), customerId, status: 'placed', ...request.body };
  const body = JSON.stringify(order);
  insert.run(order.id, customerId, body);
  response.status(201).location(`/orders/${order.id}`).type('application/json').send(body);
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => server.close(() => db.close()));
