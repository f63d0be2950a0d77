import type { DatabaseSync } from 'node:sqlite';
import { addMissingColumns } from '../../infrastructure/sqlite/add-missing-columns.ts';
import { inWriteTransaction } from '../../infrastructure/sqlite/open-database.ts';
import {
  asPendingDelivery,
  type Delivery,
  type DeliveryQueue,
  type DeliveryStatus,
} from './delivery-queue.ts';

type Row = {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  ordering_key: string;
  sequence: number;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  earlier_attempts: number;
  next_attempt_at: number;
  created_at: number;
  lease_owner: string | null;
  lease_until: number | null;
};

const deliveryOf = (row: Row): Delivery => ({
  id: row.id,
  subscriptionId: row.subscription_id,
  eventId: row.event_id,
  eventType: row.event_type,
  orderingKey: row.ordering_key,
  sequence: row.sequence,
  body: row.body,
  status: row.status,
  attempts: row.attempts,
  ...(row.earlier_attempts > 0 ? { earlierAttempts: row.earlier_attempts } : {}),
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
  lease: row.lease_owner === null ? null : { owner: row.lease_owner, until: row.lease_until ?? 0 },
});

/** The retry state in a node:sqlite table. */
export const createSqliteDeliveryQueue = (db: DatabaseSync): DeliveryQueue => {
  db.exec(`
    CREATE TABLE IF NOT EXISTS webhook_deliveries (
      id              TEXT    PRIMARY KEY,
      subscription_id TEXT    NOT NULL,
      event_id        TEXT    NOT NULL,
      event_type      TEXT    NOT NULL,
      ordering_key    TEXT    NOT NULL,
      sequence        INTEGER NOT NULL,
      body            TEXT    NOT NULL,
      status          TEXT    NOT NULL,
      attempts        INTEGER NOT NULL,
      next_attempt_at INTEGER NOT NULL,
      created_at      INTEGER NOT NULL,
      lease_owner     TEXT,
      lease_until     INTEGER
    );
    CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
    CREATE INDEX IF NOT EXISTS webhook_deliveries_line
      ON webhook_deliveries (subscription_id, ordering_key, status, sequence);
    CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_of
      ON webhook_deliveries (subscription_id, status, created_at, sequence);
  `);
  addMissingColumns(db, 'webhook_deliveries', { earlier_attempts: 'INTEGER NOT NULL DEFAULT 0' });
  const insert = db.prepare(
    `INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, ordering_key, sequence, body,
       status, attempts, next_attempt_at, created_at, lease_owner, lease_until)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  );
  const select = db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?');
  const claim = db.prepare(
    `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
     WHERE id = ? AND status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`,
  );
  const settle = db.prepare(
    `UPDATE webhook_deliveries
     SET status = ?, next_attempt_at = coalesce(?, next_attempt_at), attempts = attempts + 1,
         lease_owner = NULL, lease_until = NULL
     WHERE id = ? AND lease_owner = ?`,
  );
  const redeliver = db.prepare(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?,
       earlier_attempts = earlier_attempts + attempts, attempts = 0,
       lease_owner = NULL, lease_until = NULL WHERE id = ?`,
  );
  const deadSince = db.prepare(
    `SELECT id FROM webhook_deliveries WHERE subscription_id = ? AND status = 'dead' AND created_at >= ?
     ORDER BY created_at, id LIMIT ?`,
  );
  // Each with the id of its line's head: the pending delivery of the line with the lowest sequence.
  const pendingOf = db.prepare(
    `SELECT d.*, (SELECT h.id FROM webhook_deliveries h
                  WHERE h.subscription_id = d.subscription_id AND h.ordering_key = d.ordering_key
                    AND h.status = 'pending' ORDER BY h.sequence, h.id LIMIT 1) AS head_of_line
     FROM webhook_deliveries d WHERE d.subscription_id = ? AND d.status = 'pending'
     ORDER BY d.created_at, d.sequence, d.id LIMIT ?`,
  );
  const nextDue = db.prepare(
    `SELECT min(next_attempt_at) AS due FROM webhook_deliveries WHERE status = 'pending' AND lease_owner IS NULL`,
  );
  const release = db.prepare('UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL');
  const releaseOne = db.prepare(
    'UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?',
  );
  const pendingLines = db.prepare(
    `SELECT DISTINCT subscription_id, ordering_key FROM webhook_deliveries WHERE status = 'pending'`,
  );

  return {
    async enqueue(deliveries, claim) {
      const added: string[] = [];
      if (deliveries.length === 0) return added;
      inWriteTransaction(db, () => {
        for (const d of deliveries) {
          const { changes } = insert.run(
            d.id,
            d.subscriptionId,
            d.eventId,
            d.eventType,
            d.orderingKey,
            d.sequence,
            d.body,
            d.nextAttemptAt,
            d.createdAt,
            claim?.owner ?? null,
            claim?.leaseUntil ?? null,
          );
          if (changes === 1) added.push(d.id);
        }
      });
      return added;
    },
    async get(id) {
      const row = select.get(id) as Row | undefined;
      return row ? deliveryOf(row) : null;
    },
    async due({ now, limit, excludeSubscriptions = [] }) {
      const excluded = excludeSubscriptions.map(() => '?').join(', ');
      const rows = db
        .prepare(
          `SELECT d.* FROM webhook_deliveries d
           WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
             ${excluded ? `AND d.subscription_id NOT IN (${excluded})` : ''}
             AND NOT EXISTS (
               SELECT 1 FROM webhook_deliveries e
               WHERE e.subscription_id = d.subscription_id AND e.ordering_key = d.ordering_key
                 AND e.status = 'pending' AND e.sequence < d.sequence)
           ORDER BY d.next_attempt_at, d.sequence LIMIT ?`,
        )
        .all(now, now, ...excludeSubscriptions, limit) as Row[];
      return rows.map(deliveryOf);
    },
    async claim(id, { owner, now, leaseUntil }) {
      return claim.run(owner, leaseUntil, id, now, now).changes === 1;
    },
    async settle(id, owner, settlement) {
      const nextAttemptAt = settlement.status === 'pending' ? settlement.nextAttemptAt : null;
      return settle.run(settlement.status, nextAttemptAt, id, owner).changes === 1;
    },
    async settleAll(settlements) {
      return inWriteTransaction(db, () =>
        settlements.map(({ delivery, settlement }) => {
          const nextAttemptAt = settlement.status === 'pending' ? settlement.nextAttemptAt : null;
          return (
            delivery.lease !== null &&
            settle.run(settlement.status, nextAttemptAt, delivery.id, delivery.lease.owner).changes === 1
          );
        }),
      );
    },
    async redeliver(id, now) {
      return redeliver.run(now, id).changes === 1;
    },
    async deadSince(subscriptionId, since, limit) {
      return deadSince.all(subscriptionId, since, limit).map((row) => (row as { id: string }).id);
    },
    async pendingOf(subscriptionId, limit) {
      const rows = pendingOf.all(subscriptionId, limit + 1) as (Row & { head_of_line: string })[];
      return {
        deliveries: rows.slice(0, limit).map((row) => asPendingDelivery(deliveryOf(row), row.head_of_line)),
        more: rows.length > limit,
      };
    },
    async nextDueAt() {
      const { due } = nextDue.get() as { due: number | null };
      return due;
    },
    async release(ids, owner) {
      inWriteTransaction(db, () => {
        for (const id of ids) releaseOne.run(id, owner);
      });
    },
    async pendingLines() {
      return (pendingLines.all() as { subscription_id: string; ordering_key: string }[]).map((row) => ({
        subscriptionId: row.subscription_id,
        orderingKey: row.ordering_key,
      }));
    },
    async releaseLeases() {
      release.run();
    },
  };
};
