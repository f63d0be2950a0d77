// The ceiling of GET /orders/{id} (issue 31): the least that route must do. On top of ceiling-app.ts (Express
// 5, security headers, X-Request-Id, the cached token verifier, the log line with --log): one prepared SELECT
// by primary key in a node:sqlite table of orders whose response bytes, ETag and Last-Modified were worked
// out when the row was written; the owner check (the token's user, or a role that reads every order, as
// domain/identity/permissions.ts says); 304 when If-None-Match (or If-Modified-Since) says the client's copy is
// current (infrastructure/http/representation.ts), the stored bytes otherwise.
// The table holds the benchmark's order (the service's own bytes for it) and `fillerOrders` others, so that
// the lookup walks a B-tree of the size the service's read model has after the POST load.
// Run: node bench/support/ceilings/get-order.ts CONFIG.json [--log]; prints its URL on stdout.
import { randomUUIDv7 } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { scopeOf } from '../../../domain/identity/permissions.ts';
import { httpDate, notModified, strongEtag } from '../../../infrastructure/http/representation.ts';
import { bareErrors, bearerAuth, ceilingApp, ceilingConfig, listen } from './ceiling-app.ts';

const config = ceilingConfig<{
  /** The order the benchmark reads: its id, owner, updatedAt and the service's bytes (base64). */
  order: { id: string; customerId: string; updatedAt: string; body: string };
  fillerOrders: number;
}>();

const path = join(config.dataDir, `ceiling-orders-${process.pid}.sqlite`);
const db = new DatabaseSync(path);
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA synchronous = NORMAL');
db.exec(`CREATE TABLE orders (
  id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, etag TEXT NOT NULL, last_modified TEXT NOT NULL,
  body BLOB NOT NULL) WITHOUT ROWID`);
{
  // What a projection would do as it writes the row: the bytes, their ETag and Last-Modified, once.
  const insert = db.prepare('INSERT INTO orders VALUES (?, ?, ?, ?, ?)');
  const write = (id: string, customerId: string, updatedAt: string, body: Buffer) =>
    insert.run(id, customerId, strongEtag(body), httpDate(updatedAt), body);
  const body = Buffer.from(config.order.body, 'base64');
  db.exec('BEGIN');
  write(config.order.id, config.order.customerId, config.order.updatedAt, body);
  const template = body.toString('utf8');
  for (let index = 0; index < config.fillerOrders; index++) {
    const id = randomUUIDv7();
    write(
      id,
      config.order.customerId,
      config.order.updatedAt,
      Buffer.from(template.replaceAll(config.order.id, id)),
    );
  }
  db.exec('COMMIT');
}
const select = db.prepare('SELECT customer_id, etag, last_modified, body FROM orders WHERE id = ?');
type Row = { customer_id: string; etag: string; last_modified: string; body: Uint8Array };

const authenticate = bearerAuth(config);
const app = ceilingApp();
const router = app.route('/orders/:orderId');
router.get((request, response) => {
  response.setHeader('Cache-Control', 'private, no-cache');
  const principal = authenticate(request, response);
  if (!principal) return;
  const scope = scopeOf(principal.roles, 'getOrder');
  if (scope === null) {
    response.status(403).end();
    return;
  }
  const row = select.get(request.params.orderId) as Row | undefined;
  // Another customer's order is not found, never forbidden.
  if (!row || (scope !== 'any' && row.customer_id !== principal.userId)) {
    response.status(404).end();
    return;
  }
  response.setHeader('ETag', row.etag);
  response.setHeader('Last-Modified', row.last_modified);
  if (notModified(request, { etag: row.etag, lastModified: row.last_modified })) {
    response.status(304).end();
    return;
  }
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', row.body.length);
  response.status(200).end(row.body);
});
app.use(bareErrors);
listen(app, () => {
  db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
});
