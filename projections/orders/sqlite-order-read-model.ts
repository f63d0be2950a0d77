import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { inWriteTransaction } from '../../infrastructure/sqlite/open-database.ts';
import { idRangeStartingWith, type OrderListQuery, type OrderReadModel } from './order-read-model.ts';
import type { RecordedEvent } from '../../infrastructure/event-store/event-store.ts';
import { foldOrder, foldOrderView, foldedOf, viewOf, type FoldedOrder } from './order-projection.ts';
import { isOrderStream, orderIdOf } from '../../domain/orders/order.ts';
import type { OrderView } from './order-projection.ts';

// A rowid table: documents land in pages in insertion order, and only the small id index takes the
// random writes of random UUIDs (WITHOUT ROWID would put each whole document on a random page).
const tableSchema = (table: string) => `
  CREATE TABLE IF NOT EXISTS ${table} (
    id          TEXT    NOT NULL UNIQUE,
    customer_id TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    revision    INTEGER NOT NULL,
    document    TEXT    NOT NULL
  );
`;
/** An id's last 8 characters (a UUID has 36): the short id, indexed as this very expression. */
const shortIdOfRow = 'substr(id, 29)';
/** The total's amount and currency, read from the document, and indexed as these very expressions. */
const totalMinorOfRow = "json_extract(document, '$.total.amountMinor')";
const totalCurrencyOfRow = "json_extract(document, '$.total.currency')";

/** The listing's indexes, by the suffix of their names. */
const listingIndexes = {
  listing: '(created_at, id)',
  customer: '(customer_id, created_at, id)',
  status: '(status, created_at, id)',
  short_id: `(${shortIdOfRow})`,
  // The currency, then the listing's order, then the amount: walked newest first, the amount read off the index.
  total: `(${totalCurrencyOfRow}, created_at, id, ${totalMinorOfRow})`,
};

const indexSchema = (table: string) =>
  Object.entries(listingIndexes)
    .map(([suffix, columns]) => `CREATE INDEX IF NOT EXISTS ${table}_${suffix} ON ${table} ${columns};`)
    .join('\n');

const liveTable = 'order_views';
/** How many orders' texts getOrderIfChanged remembers: as many as the query side keeps. */
const handedOutAtMost = 5_000;
const rebuildTable = 'order_views_rebuild';

/** A view readIfChanged handed out: its revision and text, and the database's change stamp it was last seen at. */
type HandedOut = { revision: number; document: string; seenAt: number };
/**
 * What readIfChanged handed out, by connection and table: every model on the connection forgets what it
 * writes (a write, a clear, a swap), and SQLite's data_version tells a commit by any other connection.
 */
const handedOutBy = new WeakMap<DatabaseSync, Map<string, Map<string, HandedOut>>>();
const handedOutOf = (db: DatabaseSync, table: string): Map<string, HandedOut> => {
  let tables = handedOutBy.get(db);
  if (!tables) handedOutBy.set(db, (tables = new Map()));
  let handedOut = tables.get(table);
  if (!handedOut) tables.set(table, (handedOut = new Map()));
  return handedOut;
};

/** The order views of one table: read one, its revision, write one (unless the table's is as far or further). */
const viewTable = (db: DatabaseSync, table: string) => {
  db.exec(tableSchema(table));
  const select = db.prepare(`SELECT document FROM ${table} WHERE id = ?`);
  const selectRevision = db.prepare(`SELECT revision FROM ${table} WHERE id = ?`);
  const selectWithRevision = db.prepare(`SELECT revision, document FROM ${table} WHERE id = ?`);
  // Changes with every commit of another connection to the file (the admin CLI's rebuild, a repair).
  const dataVersion = db.prepare('PRAGMA data_version');
  const changeStamp = () => (dataVersion.get() as { data_version: number }).data_version;
  const handedOut = handedOutOf(db, table);
  const upsert = db.prepare(
    `INSERT INTO ${table} (id, customer_id, status, created_at, revision, document) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, revision = excluded.revision, document = excluded.document
     WHERE ${table}.revision < excluded.revision`,
  );
  return {
    read(id: string): OrderView | null {
      const row = select.get(id) as { document: string } | undefined;
      return row ? (JSON.parse(row.document) as OrderView) : null;
    },
    readIfChanged(id: string, knownRevision: number): OrderView | null | 'unchanged' {
      const stamp = changeStamp();
      const seen = handedOut.get(id);
      // Nothing this connection wrote to it since (it would be forgotten), nor any other connection anything.
      if (seen?.revision === knownRevision && seen.seenAt === stamp) return 'unchanged';
      const row = selectWithRevision.get(id) as { revision: number; document: string } | undefined;
      if (!row) return null;
      // The text too, not only the revision: a rebuild may repair a view without a new revision.
      if (seen && row.revision === knownRevision && seen.document === row.document) {
        seen.seenAt = stamp;
        return 'unchanged';
      }
      handedOut.delete(id);
      if (handedOut.size >= handedOutAtMost) handedOut.delete(handedOut.keys().next().value!);
      handedOut.set(id, { revision: row.revision, document: row.document, seenAt: stamp });
      return JSON.parse(row.document) as OrderView;
    },
    revisionOf(id: string): number | undefined {
      return (selectRevision.get(id) as { revision: number } | undefined)?.revision;
    },
    write(view: OrderView): void {
      handedOut.delete(view.id);
      upsert.run(view.id, view.customerId, view.status, view.createdAt, view.revision, JSON.stringify(view));
    },
  };
};

/** A batch of log events by order id, each order's in log order; events of other streams left out. */
const eventsByOrder = (events: readonly RecordedEvent[]): Map<string, RecordedEvent[]> => {
  const byOrder = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    if (!isOrderStream(event.streamId)) continue;
    const id = orderIdOf(event.streamId);
    const ofOrder = byOrder.get(id);
    if (ofOrder) ofOrder.push(event);
    else byOrder.set(id, [event]);
  }
  return byOrder;
};

/** An order's events of a batch are its history from the start (OrderPlaced on): folded from nothing. */
const isWholeHistory = (events: readonly RecordedEvent[]): boolean =>
  events.every((event, index) => event.revision === index);

/**
 * Orders in a node:sqlite table: `order_views`, or the table a rebuild fills before it is swapped in. A bulk
 * load leaves out the listing indexes (`indexed: false`) and builds them once at the end, from sorted data,
 * rather than inserting into three B-trees at random for every order.
 */
export const createSqliteOrderReadModel = (
  db: DatabaseSync,
  { table = liveTable, indexed = true }: { table?: string; indexed?: boolean } = {},
): OrderReadModel => {
  const { read, readIfChanged, write } = viewTable(db, table);
  if (indexed) db.exec(indexSchema(table));
  // The listing's SQL varies only by which filters are set: a handful of texts, each prepared once.
  const prepared = new Map<string, StatementSync>();
  const statement = (sql: string): StatementSync => {
    let cached = prepared.get(sql);
    if (!cached) {
      cached = db.prepare(sql);
      prepared.set(sql, cached);
    }
    return cached;
  };

  return {
    async applyEvents(events) {
      // Each order touched by the batch is folded through all its events of the batch and written once, in
      // one write transaction, so that another writer (a rebuild in the admin CLI) cannot come in between.
      // An order whose events here are its history from the start (OrderPlaced on) is not read: folded from
      // nothing, its view is the true one, and the upsert keeps a stored view as far or further (a replay).
      const byOrder = eventsByOrder(events);
      if (byOrder.size === 0) return;
      inWriteTransaction(db, () => {
        for (const [id, ofOrder] of byOrder) {
          const view = foldOrderView(isWholeHistory(ofOrder) ? null : read(id), ofOrder);
          if (view) write(view);
        }
      });
    },

    async getOrder(id) {
      return read(id);
    },

    async getOrderIfChanged(id, knownRevision) {
      return readIfChanged(id, knownRevision);
    },

    async listOrders(query: OrderListQuery) {
      const where: string[] = [];
      const values: SQLInputValue[] = [];
      if (query.customerId !== undefined) {
        where.push('customer_id = ?');
        values.push(query.customerId);
      }
      if (query.status !== undefined) {
        where.push('status = ?');
        values.push(query.status);
      }
      // Times as the views store them (ISO 8601 UTC with milliseconds): in order as text, in the listing indexes.
      if (query.placedFrom !== undefined) {
        where.push('created_at >= ?');
        values.push(query.placedFrom);
      }
      if (query.placedBefore !== undefined) {
        where.push('created_at < ?');
        values.push(query.placedBefore);
      }
      if (query.idEndsWith !== undefined) {
        where.push(`${shortIdOfRow} = ?`);
        values.push(query.idEndsWith);
      }
      if (query.idStartsWith !== undefined) {
        const { from, below } = idRangeStartingWith(query.idStartsWith);
        where.push('id >= ? AND id < ?');
        values.push(from, below);
      }
      if (query.totalWithin !== undefined) {
        const { currency, atLeastMinor, atMostMinor } = query.totalWithin;
        where.push(`${totalCurrencyOfRow} = ?`);
        values.push(currency);
        if (atLeastMinor !== undefined) {
          where.push(`${totalMinorOfRow} >= ?`);
          values.push(atLeastMinor);
        }
        if (atMostMinor !== undefined) {
          where.push(`${totalMinorOfRow} <= ?`);
          values.push(atMostMinor);
        }
      }
      const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';

      if (query.kind === 'page') {
        const total = (
          statement(`SELECT count(*) AS n FROM ${table} ${filter}`).get(...values) as { n: number }
        ).n;
        const rows = statement(
          `SELECT document FROM ${table} ${filter} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
        ).all(...values, query.limit, query.offset) as { document: string }[];
        const orders = rows.map((row) => JSON.parse(row.document) as OrderView);
        return { orders, total, hasMore: query.offset + orders.length < total };
      }

      // Keyset pagination: "after" walks towards older orders, "before" towards newer ones.
      const backwards = query.before !== undefined;
      const cursor = query.before ?? query.after;
      const conditions = [...where];
      const cursorValues = [...values];
      if (cursor) {
        conditions.push(`(created_at, id) ${backwards ? '>' : '<'} (?, ?)`);
        cursorValues.push(cursor.createdAt, cursor.id);
      }
      const rows = statement(
        `SELECT document FROM ${table} ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
           ORDER BY created_at ${backwards ? 'ASC' : 'DESC'}, id ${backwards ? 'ASC' : 'DESC'} LIMIT ?`,
      ).all(...cursorValues, query.limit + 1) as { document: string }[];
      const hasMore = rows.length > query.limit;
      const orders = rows.slice(0, query.limit).map((row) => JSON.parse(row.document) as OrderView);
      return { orders: backwards ? orders.reverse() : orders, hasMore };
    },

    async clear() {
      handedOutOf(db, table).clear();
      db.exec(`DELETE FROM ${table}`);
    },
  };
};

/**
 * The scratch table's model: a write-behind cache of folded views over it. An order stays in memory while
 * the replay folds its events and is written when it leaves the cache (the least recently touched first)
 * or on flush. In a log as the service writes it (one command, one event), an order's events lie far apart,
 * each in another replay batch: folded in the cache, the order is read and written about once instead of
 * once per event. It starts from an empty table and is its only writer: what it holds is an order's newest
 * view, and an order it never wrote is not in the table.
 */
const createWriteBehindOrderReadModel = (
  db: DatabaseSync,
  { table, capacity }: { table: string; capacity: number },
) => {
  handedOutOf(db, table).clear();
  db.exec(`DROP TABLE IF EXISTS ${table}`);
  const views = viewTable(db, table);
  const stored = createSqliteOrderReadModel(db, { table, indexed: false });
  // Folded orders, not views: an order folded over several batches has its view built once, when written.
  const cache = new Map<string, FoldedOrder>();
  const written = new Set<string>();
  const writeOut = (count: number) => {
    if (count <= 0) return;
    inWriteTransaction(db, () => {
      for (const [id, folded] of cache) {
        if (count-- === 0) break;
        views.write(viewOf(folded));
        written.add(id);
        cache.delete(id);
      }
    });
  };
  const flush = () => writeOut(cache.size);

  const model: OrderReadModel = {
    async applyEvents(events) {
      for (const [id, ofOrder] of eventsByOrder(events)) {
        const cached = cache.get(id);
        const inTable = !cached && written.has(id);
        const fromNothing = !cached && isWholeHistory(ofOrder);
        const fromTable = cached || fromNothing || !inTable ? null : views.read(id);
        const folded = foldOrder(cached ?? (fromTable && foldedOf(fromTable)), ofOrder);
        if (!folded) continue;
        // Folded from nothing, the view may be behind the stored one (a replay of its start): keep that.
        if (fromNothing && inTable && (views.revisionOf(id) ?? -1) >= folded.revision) continue;
        cache.delete(id);
        cache.set(id, folded);
      }
      writeOut(cache.size - capacity);
    },
    async getOrder(id) {
      flush();
      return stored.getOrder(id);
    },
    async getOrderIfChanged(id, knownRevision) {
      flush();
      return stored.getOrderIfChanged(id, knownRevision);
    },
    async listOrders(query) {
      flush();
      return stored.listOrders(query);
    },
    async clear() {
      cache.clear();
      written.clear();
      await stored.clear();
    },
  };
  return { model, flush, forget: () => cache.clear() };
};

/**
 * A scratch table for projections:rebuild and :verify, loaded without its listing indexes through a
 * write-behind cache of `cachedOrders` views, and the swap: in one write transaction the live table is
 * dropped, the scratch one renamed in its place, and its indexes built. Readers (WAL) see the old orders
 * until the commit, then the new ones; a running service's prepared statements are prepared again by
 * SQLite on their next use.
 *
 * While it loads, this connection's automatic WAL checkpoints are off: each would copy the table's new
 * pages into the database file and sync it, every 4 MB, about a quarter of a rebuild's time. The WAL
 * grows by the table's size instead (twice the read store's disk space, for the length of the rebuild), and
 * one checkpoint at the end copies it, without waiting for a running service's readers.
 */
export const sqliteScratchOrderReadModel = (
  db: DatabaseSync,
  { cachedOrders = 10_000 }: { cachedOrders?: number } = {},
) => {
  const { wal_autocheckpoint: autoCheckpointPages } = db.prepare('PRAGMA wal_autocheckpoint').get() as {
    wal_autocheckpoint: number;
  };
  db.exec('PRAGMA wal_autocheckpoint = 0');
  const checkpointAgain = () => {
    db.exec(`PRAGMA wal_autocheckpoint = ${autoCheckpointPages}`);
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  };
  const scratch = createWriteBehindOrderReadModel(db, { table: rebuildTable, capacity: cachedOrders });
  return {
    model: scratch.model,
    async loaded() {
      scratch.flush();
      db.exec(indexSchema(rebuildTable));
    },
    async promote() {
      scratch.flush();
      inWriteTransaction(db, () => {
        handedOutOf(db, liveTable).clear();
        db.exec(`DROP TABLE IF EXISTS ${liveTable}`);
        db.exec(`ALTER TABLE ${rebuildTable} RENAME TO ${liveTable}`);
        // A renamed table keeps its indexes' names: the scratch ones go, the live ones are built afresh.
        for (const suffix of Object.keys(listingIndexes))
          db.exec(`DROP INDEX IF EXISTS ${rebuildTable}_${suffix}`);
        db.exec(indexSchema(liveTable));
      });
      checkpointAgain();
    },
    async discard() {
      scratch.forget();
      db.exec(`DROP TABLE IF EXISTS ${rebuildTable}`);
      checkpointAgain();
    },
  };
};
