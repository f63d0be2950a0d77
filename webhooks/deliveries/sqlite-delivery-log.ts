import type { DatabaseSync } from 'node:sqlite';
import { inWriteTransaction } from '../../infrastructure/sqlite/open-database.ts';
import {
  deliveryStatsOf,
  statsOverAttempts,
  type AttemptOutcome,
  type DeliveryAttempt,
  type DeliveryLog,
  type DeliveryStats,
} from './delivery-log.ts';

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
  // Per subscription asked for (a JSON array), two probes of the newest-first index: its latest attempts,
  // counted, and its newest one. One statement for a whole list, reading at most 51 rows of each.
  const stats = db.prepare(
    `SELECT s.value AS subscriptionId,
       (SELECT json_object('attempts', count(*), 'delivered', coalesce(sum(outcome = 'delivered'), 0))
          FROM (SELECT json_extract(document, '$.outcome') AS outcome FROM webhook_delivery_attempts
                WHERE subscription_id = s.value ORDER BY attempted_at DESC, id DESC LIMIT ?)) AS recent,
       (SELECT json_object('outcome', json_extract(document, '$.outcome'), 'attemptedAt', attempted_at)
          FROM webhook_delivery_attempts WHERE subscription_id = s.value
          ORDER BY attempted_at DESC, id DESC LIMIT 1) AS last
     FROM json_each(?) AS s`,
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
    async statsOf(subscriptionIds) {
      const result = new Map<string, DeliveryStats>();
      if (subscriptionIds.length === 0) return result;
      const rows = stats.all(statsOverAttempts, JSON.stringify(subscriptionIds)) as {
        subscriptionId: string;
        recent: string;
        last: string | null;
      }[];
      for (const { subscriptionId, recent, last } of rows) {
        const { attempts, delivered } = JSON.parse(recent) as { attempts: number; delivered: number };
        const newest =
          last === null ? null : (JSON.parse(last) as { outcome: AttemptOutcome; attemptedAt: string });
        result.set(subscriptionId, deliveryStatsOf(attempts, delivered, newest));
      }
      return result;
    },
  };
};
