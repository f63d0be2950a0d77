// The ceiling of POST /orders (issue 31): the least that route must do. On top of ceiling-app.ts (Express 5,
// security headers, X-Request-Id, the cached token verifier, the log line with --log): express.json(), the
// project's zod order schema (command-api/orders/place-order.ts: its shape; the lookups here are in memory), the products (the demo catalogue) and the
// caller's stored addresses from memory, prices and names copied, stock checked, the total worked out; one
// OrderPlaced event row, with the service's data and metadata, appended to a node:sqlite log in WAL mode
// (synchronous=NORMAL, UNIQUE (stream, revision), as the service's log); 201 with Location, ETag,
// Last-Modified, Consistency-Token (the event's position) and the order as the service sends it
// (domain/orders/order-resource.ts).
// By default each request commits its own row. With --group-commit the rows appended in one turn of the
// event loop are committed together, and each request is answered once its row committed (as the service's
// event store does).
// Run: node bench/support/ceilings/post-order.ts CONFIG.json [--log] [--group-commit]; prints its URL.
import { randomUUIDv7 } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import express from 'express';
import type { Product } from '../../../catalog/catalog.ts';
import { readCatalogFile } from '../../../catalog/catalog-file.ts';
import { placeOrderCommand, resolveOrderRequest } from '../../../command-api/orders/place-order.ts';
import { money } from '../../../domain/shared/money.ts';
import type { StoredAddress } from '../../../identity/users.ts';
import { scopeOf } from '../../../domain/identity/permissions.ts';
import { requestIdOf } from '../../../infrastructure/http/request-id.ts';
import type { OrderDetails } from '../../../domain/orders/order-details.ts';
import { orderRepresentation } from '../order-representation.ts';
import { bareErrors, bearerAuth, ceilingApp, ceilingConfig, listen } from './ceiling-app.ts';

const config = ceilingConfig<{
  currency: string;
  /** The stored addresses of the benchmark's customers. */
  addresses: (Omit<StoredAddress, 'createdAt'> & { customerId: string })[];
}>();
const groupCommit = process.argv.includes('--group-commit');

const products = new Map<number, Product>(
  readCatalogFile(
    JSON.parse(readFileSync(new URL('../../../catalog/demo-catalog.json', import.meta.url), 'utf8')),
    config.currency,
  ).products.map((product) => [product.id, product]),
);
const addresses = new Map<string, Map<string, StoredAddress>>();
for (const { customerId, id, street, city, postalCode, country } of config.addresses) {
  if (!addresses.has(customerId)) addresses.set(customerId, new Map());
  addresses.get(customerId)!.set(id, { id, street, city, postalCode, country, createdAt: '' });
}
/** The schema's lookups, answered from memory. */
const lookups = {
  catalog: { getProduct: async (id: number) => products.get(id) ?? null },
  users: {
    findAddress: async (customerId: string, addressId: string) =>
      addresses.get(customerId)?.get(addressId) ?? null,
  },
};

const path = join(config.dataDir, `ceiling-events-${process.pid}.sqlite`);
const db = new DatabaseSync(path);
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA synchronous = NORMAL');
db.exec(`CREATE TABLE events (
  position INTEGER PRIMARY KEY, stream_id TEXT NOT NULL, revision INTEGER NOT NULL, id TEXT NOT NULL,
  type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream_id, revision))`);
const insert = db.prepare(
  'INSERT INTO events (stream_id, revision, id, type, data, metadata) VALUES (?, 0, ?, ?, ?, ?)',
);
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');

type Row = { streamId: string; data: string; metadata: string };
const appendOne = (row: Row): bigint =>
  BigInt(insert.run(row.streamId, randomUUIDv7(), 'OrderPlaced', row.data, row.metadata).lastInsertRowid);

/** The rows of one event-loop turn, committed together; each caller told its position once committed. */
let pending: { row: Row; done: (position: bigint | Error) => void }[] = [];
const flush = () => {
  const group = pending;
  pending = [];
  let positions: bigint[];
  try {
    begin.run();
    positions = group.map(({ row }) => appendOne(row));
    commit.run();
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    for (const { done } of group) done(error as Error);
    return;
  }
  group.forEach(({ done }, index) => done(positions[index]!));
};
const append = (row: Row, done: (position: bigint | Error) => void) => {
  if (!groupCommit) {
    let position: bigint | Error;
    try {
      position = appendOne(row);
    } catch (error) {
      position = error as Error;
    }
    done(position);
    return;
  }
  pending.push({ row, done });
  if (pending.length === 1) setImmediate(flush);
};

const authenticate = bearerAuth(config);
const app = ceilingApp();
app.post('/orders', express.json({ limit: 100 * 1024 }), async (request, response) => {
  response.setHeader('Cache-Control', 'no-store');
  const principal = authenticate(request, response);
  if (!principal) return;
  if (scopeOf(principal.roles, 'placeOrder') === null) {
    response.status(403).end();
    return;
  }
  const parsed = await resolveOrderRequest(lookups, principal.userId, request.body);
  if (!parsed.ok) {
    response.status(400).end();
    return;
  }
  const orderId = randomUUIDv7();
  const placedAt = new Date().toISOString();
  const {
    data: { items: lines, shippingAddress: address, note },
  } = placeOrderCommand(parsed.request, {
    orderId,
    customerId: principal.userId,
    placedAt,
    currency: config.currency,
  });
  const total = money(
    lines.reduce((sum, line) => sum + line.unitPrice.amountMinor * line.quantity, 0),
    config.currency,
  );
  const requestId = requestIdOf(response);
  // The service's OrderPlaced: the command's data and the total; its metadata.
  const row: Row = {
    streamId: `order-${orderId}`,
    data: JSON.stringify({
      orderId,
      customerId: principal.userId,
      items: lines,
      shippingAddress: address,
      note,
      placedAt,
      total,
    }),
    metadata: JSON.stringify({
      actor: { userId: principal.userId, roles: principal.roles },
      correlationId: requestId,
      causationId: requestId,
      occurredAt: placedAt,
    }),
  };
  append(row, (position) => {
    if (position instanceof Error) {
      response.status(500).end();
      return;
    }
    const order: OrderDetails = {
      status: 'pending',
      id: orderId,
      customerId: principal.userId,
      items: [...lines],
      total,
      shippingAddress: address,
      note,
      payments: [],
      cancellationReason: null,
      createdAt: placedAt,
      updatedAt: placedAt,
    };
    const representation = orderRepresentation(order);
    response
      .status(201)
      .set({
        Location: `/orders/${orderId}`,
        ETag: representation.etag,
        'Last-Modified': representation.lastModified,
        'Consistency-Token': position.toString(),
        'Content-Type': representation.contentType,
      })
      .end(representation.body);
  });
});
app.use(bareErrors);
listen(app, () => {
  db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
});
