// The baseline of bench:replay: the least a replay of the order read model needs, on bare node:sqlite in one
// thread. It reads DIR/events.sqlite in position order, 1,000 rows at a time (as arrays), parses each
// event's data, folds each order's events into one document by merging their data (no domain, no revision
// guard), then writes every document into a fresh table of DIR/bare-read-store.sqlite (the read model's
// columns, in one transaction), builds the read model's three listing indexes and checkpoints the WAL.
// Run: node bench/support/bare-replay.ts DIR [--no-journal]; prints {events, orders, seconds, maxRssMb} as
// JSON. --no-journal writes with no journal and no syncs at all (a ceiling: a fresh file nobody reads yet).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

const [dir, ...options] = process.argv.slice(2) as [string, ...string[]];
const journal = !options.includes('--no-journal');
const storePath = join(dir, 'bare-read-store.sqlite');
for (const suffix of ['', '-wal', '-shm']) rmSync(`${storePath}${suffix}`, { force: true });

const started = performance.now();
const log = new DatabaseSync(join(dir, 'events.sqlite'), { readOnly: true });
const select = log.prepare(
  'SELECT position, stream_id, revision, type, data FROM events WHERE position > ? ORDER BY position LIMIT 1000',
);
select.setReturnArrays(true);
select.setReadBigInts(true);

type Document = Record<string, unknown> & { status: string; revision: number };
const documents = new Map<string, Document>();
let events = 0;
let after = 0n;
for (;;) {
  const rows = select.all(after) as unknown as [bigint, string, bigint, string, string][];
  if (rows.length === 0) break;
  for (const [, streamId, revision, type, data] of rows) {
    if (!streamId.startsWith('order-')) continue;
    const document = documents.get(streamId);
    const merged = { ...document, ...(JSON.parse(data) as object), status: type, revision: Number(revision) };
    documents.set(streamId, merged);
  }
  events += rows.length;
  after = rows.at(-1)![0];
}
log.close();

const store = new DatabaseSync(storePath);
store.exec(journal ? 'PRAGMA journal_mode = WAL' : 'PRAGMA journal_mode = OFF');
store.exec(journal ? 'PRAGMA synchronous = NORMAL' : 'PRAGMA synchronous = OFF');
store.exec(`CREATE TABLE order_views (
  id TEXT NOT NULL UNIQUE, customer_id TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL,
  revision INTEGER NOT NULL, document TEXT NOT NULL)`);
const insert = store.prepare('INSERT INTO order_views VALUES (?, ?, ?, ?, ?, ?)');
store.exec('BEGIN');
for (const [streamId, document] of documents) {
  insert.run(
    streamId,
    String(document['customerId']),
    document.status,
    String(document['placedAt']),
    document.revision,
    JSON.stringify(document),
  );
}
store.exec('COMMIT');
store.exec(`
  CREATE INDEX order_views_listing ON order_views (created_at, id);
  CREATE INDEX order_views_customer ON order_views (customer_id, created_at, id);
  CREATE INDEX order_views_status ON order_views (status, created_at, id);
`);
if (journal) store.exec('PRAGMA wal_checkpoint(PASSIVE)');
const seconds = (performance.now() - started) / 1000;
store.close();
process.stdout.write(
  JSON.stringify({
    events,
    orders: documents.size,
    seconds,
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
