import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { inWriteTransaction } from '../infrastructure/sqlite/open-database.ts';
import type { OrderListQuery, OrderReadModel } from './order-read-model.ts';
import { isOrderStream, nextOrderView, orderIdOf } from './order-projection.ts';
import type { OrderView } from './order-view.ts';

// A rowid table: documents land in pages in insertion order, and only the small id index takes the
// random writes of random UUIDs (WITHOUT ROWID would put each whole document on a random page).
const schema = (table: string) => `
  CREATE TABLE IF NOT EXISTS ${table} (
    id          TEXT    NOT NULL UNIQUE,
    customer_id TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    revision    INTEGER NOT NULL,
    document    TEXT    NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ${table}_listing ON ${table} (created_at, id);
  CREATE INDEX IF NOT EXISTS ${table}_customer ON ${table} (customer_id, created_at, id);
  CREATE INDEX IF NOT EXISTS ${table}_status ON ${table} (status, created_at, id);
`;

const liveTable = 'order_views';
const rebuildTable = 'order_views_rebuild';

/** Orders in a node:sqlite table: `order_views`, or the table a rebuild fills before it is swapped in. */
export const createSqliteOrderReadModel = (
  db: DatabaseSync,
  { table = liveTable }: { table?: string } = {},
): OrderReadModel => {
  db.exec(schema(table));
  const select = db.prepare(`SELECT document FROM ${table} WHERE id = ?`);
  const upsert = db.prepare(
    `INSERT INTO ${table} (id, customer_id, status, created_at, revision, document) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, revision = excluded.revision, document = excluded.document`,
  );
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

  const read = (id: string): OrderView | null => {
    const row = select.get(id) as { document: string } | undefined;
    return row ? (JSON.parse(row.document) as OrderView) : null;
  };

  return {
    async applyEvents(events) {
      inWriteTransaction(db, () => {
        const touched = new Map<string, OrderView | null>();
        for (const event of events) {
          if (!isOrderStream(event.streamId)) continue;
          const id = orderIdOf(event.streamId);
          const current = touched.has(id) ? touched.get(id)! : read(id);
          const next = nextOrderView(current, event);
          if (!next) continue;
          touched.set(id, next);
          upsert.run(
            next.id,
            next.customerId,
            next.status,
            next.createdAt,
            next.revision,
            JSON.stringify(next),
          );
        }
      });
    },

    async getOrder(id) {
      return read(id);
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
      db.exec(`DELETE FROM ${table}`);
    },
  };
};

/**
 * A scratch table for projections:rebuild, and the swap: one write transaction replaces every live order
 * with the rebuilt ones. Readers (WAL) see the old orders until the commit, then the new ones.
 */
export const sqliteScratchOrderReadModel = (db: DatabaseSync) => {
  db.exec(`DROP TABLE IF EXISTS ${rebuildTable}`);
  return {
    model: createSqliteOrderReadModel(db, { table: rebuildTable }),
    async promote() {
      inWriteTransaction(db, () => {
        db.exec(`DELETE FROM ${liveTable}`);
        db.exec(`INSERT INTO ${liveTable} SELECT * FROM ${rebuildTable}`);
        db.exec(`DROP TABLE ${rebuildTable}`);
      });
    },
    async discard() {
      db.exec(`DROP TABLE IF EXISTS ${rebuildTable}`);
    },
  };
};
