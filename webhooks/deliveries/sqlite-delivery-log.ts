import type { DatabaseSync } from 'node:sqlite';
import { inWriteTransaction } from '../../infrastructure/sqlite/open-database.ts';
import type { DeliveryAttempt, DeliveryLog } from './delivery-log.ts';

/** Delivery attempts in a node:sqlite table, one JSON document per attempt. */
export const createSqliteDeliveryLog = (db: DatabaseSync): DeliveryLog => {
  db.exec(`
    CREATE TABLE IF NOT EXISTS webhook_delivery_attempts (
      id              TEXT PRIMARY KEY,
      subscription_id TEXT NOT NULL,
      attempted_at    TEXT NOT NULL,
      document        TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS webhook_delivery_attempts_newest
      ON webhook_delivery_attempts (subscription_id, attempted_at, id);
  `);
  // A parameter left null lets every attempt through; each is given twice.
  const matching = `AND (? IS NULL OR json_extract(document, '$.outcome') = ?)
    AND (? IS NULL OR json_extract(document, '$.eventType') = ?)`;
  const insert = db.prepare(
    `INSERT INTO webhook_delivery_attempts (id, subscription_id, attempted_at, document) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO NOTHING`,
  );
  const count = db.prepare(
    `SELECT count(*) AS total FROM webhook_delivery_attempts WHERE subscription_id = ? ${matching}`,
  );
  const page = db.prepare(
    `SELECT document FROM webhook_delivery_attempts WHERE subscription_id = ? ${matching}
     ORDER BY attempted_at DESC, id DESC LIMIT ? OFFSET ?`,
  );
  const older = db.prepare(
    `SELECT document FROM webhook_delivery_attempts WHERE subscription_id = ? ${matching} AND (attempted_at, id) < (?, ?)
     ORDER BY attempted_at DESC, id DESC LIMIT ?`,
  );
  const newest = db.prepare(
    `SELECT document FROM webhook_delivery_attempts WHERE subscription_id = ? ${matching}
     ORDER BY attempted_at DESC, id DESC LIMIT ?`,
  );
  const newer = db.prepare(
    `SELECT document FROM webhook_delivery_attempts WHERE subscription_id = ? ${matching} AND (attempted_at, id) > (?, ?)
     ORDER BY attempted_at, id LIMIT ?`,
  );
  const attemptsOf = (rows: unknown[]) =>
    rows.map((row) => JSON.parse((row as { document: string }).document) as DeliveryAttempt);

  return {
    async record(attempt) {
      insert.run(attempt.id, attempt.subscriptionId, attempt.attemptedAt, JSON.stringify(attempt));
    },
    async recordAll(attempts) {
      inWriteTransaction(db, () => {
        for (const attempt of attempts) {
          insert.run(attempt.id, attempt.subscriptionId, attempt.attemptedAt, JSON.stringify(attempt));
        }
      });
    },
    async list(subscriptionId, query) {
      // One more than asked for says whether there is more beyond the page.
      const probe = query.limit + 1;
      const outcome = query.outcome ?? null;
      const eventType = query.eventType ?? null;
      const of = [subscriptionId, outcome, outcome, eventType, eventType] as const;
      if (query.kind === 'page') {
        const attempts = attemptsOf(page.all(...of, probe, query.offset));
        const { total } = count.get(...of) as { total: number };
        return { attempts: attempts.slice(0, query.limit), hasMore: attempts.length > query.limit, total };
      }
      if (query.before) {
        // Toward the newer end: read upwards, then give them back newest first.
        const attempts = attemptsOf(newer.all(...of, query.before.attemptedAt, query.before.id, probe));
        return { attempts: attempts.slice(0, query.limit).reverse(), hasMore: attempts.length > query.limit };
      }
      const attempts = query.after
        ? attemptsOf(older.all(...of, query.after.attemptedAt, query.after.id, probe))
        : attemptsOf(newest.all(...of, probe));
      return { attempts: attempts.slice(0, query.limit), hasMore: attempts.length > query.limit };
    },
  };
};
