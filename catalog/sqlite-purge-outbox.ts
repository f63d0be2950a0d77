import type { DatabaseSync } from 'node:sqlite';
import type { PendingPurge, PurgeOutbox } from './catalog.ts';

const schema = `
  CREATE TABLE IF NOT EXISTS catalog_purges (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    keys        TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'pending',
    due_at      INTEGER NOT NULL DEFAULT 0,
    attempts    INTEGER NOT NULL DEFAULT 0,
    sent_to     TEXT    NOT NULL DEFAULT '[]',
    lease_owner TEXT,
    lease_until INTEGER,
    settled_at  INTEGER
  );
  CREATE INDEX IF NOT EXISTS catalog_purges_due ON catalog_purges (state, due_at);
`;

type PurgeRow = { id: number; keys: string; attempts: number; sent_to: string };

/** The state a settlement leaves a purge in: a retry is pending again. */
const state = { sent: 'sent', retry: 'pending', abandoned: 'abandoned' } as const;

const toPurge = (row: PurgeRow): PendingPurge => ({
  id: String(row.id),
  keys: JSON.parse(row.keys) as string[],
  attempts: row.attempts,
  sentTo: JSON.parse(row.sent_to) as string[],
});

/**
 * The purge outbox in the read store, beside the catalogue: `record` runs inside the import's transaction,
 * so a change and its purge are written together or not at all. A claim is one conditional UPDATE, which
 * SQLite's write lock makes exclusive between processes.
 */
export const createSqlitePurgeOutbox = (db: DatabaseSync) => {
  db.exec(schema);
  const insert = db.prepare('INSERT INTO catalog_purges (keys) VALUES (?)');
  const due = db.prepare(
    `SELECT id, keys, attempts, sent_to FROM catalog_purges
     WHERE state = 'pending' AND due_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
     ORDER BY id LIMIT ?`,
  );
  const claim = db.prepare(
    `UPDATE catalog_purges SET lease_owner = ?, lease_until = ?
     WHERE id = ? AND state = 'pending' AND due_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`,
  );
  const settle = db.prepare(
    `UPDATE catalog_purges
     SET state = ?, due_at = ?, attempts = attempts + ?, sent_to = ?, settled_at = ?, lease_owner = NULL,
       lease_until = NULL
     WHERE id = ? AND lease_owner = ?`,
  );
  const prune = db.prepare(
    "DELETE FROM catalog_purges WHERE state IN ('sent', 'abandoned') AND settled_at < ?",
  );

  const outbox: PurgeOutbox = {
    async due({ now, limit }) {
      return (due.all(now, now, limit) as PurgeRow[]).map(toPurge);
    },
    async claim(id, { owner, now, leaseUntil }) {
      return claim.run(owner, leaseUntil, Number(id), now, now).changes === 1;
    },
    async settle(id, owner, settlement) {
      const write = (dueAt: number, failed: 0 | 1, sentTo: string[], settledAt: number | null) =>
        settle.run(
          state[settlement.status],
          dueAt,
          failed,
          JSON.stringify(sentTo),
          settledAt,
          Number(id),
          owner,
        ).changes === 1;
      switch (settlement.status) {
        case 'sent':
          return write(0, 0, [], settlement.at);
        case 'retry':
          return write(settlement.dueAt, 1, settlement.sentTo, null);
        case 'abandoned':
          return write(0, 1, settlement.sentTo, settlement.at);
      }
    },
    async prune(before) {
      return Number(prune.run(before).changes);
    },
  };
  return {
    outbox,
    /** Adds a pending purge of these keys: call it inside the transaction that changes the catalogue. */
    record: (keys: string[]) => {
      if (keys.length > 0) insert.run(JSON.stringify(keys));
    },
  };
};
