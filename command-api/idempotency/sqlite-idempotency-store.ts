import type { DatabaseSync } from 'node:sqlite';
import { inWriteTransaction } from '../../infrastructure/sqlite/open-database.ts';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from './idempotency-store.ts';

type Row = { fingerprint: string; response: string | null; expires_at: string; lease_until: string };

export const createSqliteIdempotencyStore = (db: DatabaseSync): IdempotencyStore => {
  db.exec(`CREATE TABLE IF NOT EXISTS idempotency_keys (
    user_id     TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    response    TEXT,
    expires_at  TEXT NOT NULL,
    lease_until TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
  ) WITHOUT ROWID`);
  const select = db.prepare(
    'SELECT fingerprint, response, expires_at, lease_until FROM idempotency_keys WHERE user_id = ? AND key = ?',
  );
  const upsert = db.prepare(
    `INSERT INTO idempotency_keys (user_id, key, fingerprint, response, expires_at, lease_until)
     VALUES (?, ?, ?, NULL, ?, ?)
     ON CONFLICT (user_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, response = NULL,
       expires_at = excluded.expires_at, lease_until = excluded.lease_until`,
  );
  const complete = db.prepare(
    `UPDATE idempotency_keys SET response = ?
     WHERE user_id = ? AND key = ? AND fingerprint = ? AND response IS NULL`,
  );
  const release = db.prepare(
    'DELETE FROM idempotency_keys WHERE user_id = ? AND key = ? AND fingerprint = ? AND response IS NULL',
  );
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');

  return {
    async claim({ userId, key }, fingerprint, { now, expiresAt, leaseUntil }) {
      const at = now.toISOString();
      return inWriteTransaction(db, (): IdempotencyClaim => {
        const row = select.get(userId, key) as Row | undefined;
        const free = !row || row.expires_at <= at || (row.response === null && row.lease_until <= at);
        if (free) {
          upsert.run(userId, key, fingerprint, expiresAt.toISOString(), leaseUntil.toISOString());
          return { outcome: 'claimed' };
        }
        return row.response === null
          ? { outcome: 'in-progress', fingerprint: row.fingerprint }
          : {
              outcome: 'completed',
              fingerprint: row.fingerprint,
              response: JSON.parse(row.response) as StoredResponse,
            };
      });
    },
    async complete({ userId, key }, fingerprint, response) {
      complete.run(JSON.stringify(response), userId, key, fingerprint);
    },
    async release({ userId, key }, fingerprint) {
      release.run(userId, key, fingerprint);
    },
    async purgeExpired(now) {
      return Number(purge.run(now.toISOString()).changes);
    },
  };
};
