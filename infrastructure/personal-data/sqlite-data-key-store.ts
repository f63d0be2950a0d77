import type { DatabaseSync } from 'node:sqlite';
import type { DataKeyStore } from './data-key-store.ts';

/**
 * Data keys in the read store. The connection deletes securely (PRAGMA secure_delete), so an erased key's
 * bytes are overwritten in the file; the erasure then checkpoints the WAL so no old page holds it either.
 */
export const createSqliteDataKeyStore = (db: DatabaseSync): DataKeyStore => {
  db.exec(`CREATE TABLE IF NOT EXISTS personal_data_keys (
    owner_id   TEXT PRIMARY KEY,
    sealed_key TEXT,
    created_at TEXT NOT NULL,
    erased_at  TEXT
  ) WITHOUT ROWID`);
  const select = db.prepare('SELECT sealed_key, erased_at FROM personal_data_keys WHERE owner_id = ?');
  const insert = db.prepare(
    'INSERT INTO personal_data_keys (owner_id, sealed_key, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const erase = db.prepare(
    `INSERT INTO personal_data_keys (owner_id, sealed_key, created_at, erased_at) VALUES (?, NULL, ?, ?)
     ON CONFLICT (owner_id) DO UPDATE SET sealed_key = NULL, erased_at = excluded.erased_at
     WHERE personal_data_keys.erased_at IS NULL`,
  );
  const listKeys = db.prepare(
    'SELECT owner_id, sealed_key FROM personal_data_keys WHERE sealed_key IS NOT NULL ORDER BY owner_id',
  );
  const reseal = db.prepare(
    'UPDATE personal_data_keys SET sealed_key = ? WHERE owner_id = ? AND sealed_key IS NOT NULL',
  );

  const get = (ownerId: string) => {
    const row = select.get(ownerId) as { sealed_key: string | null; erased_at: string | null } | undefined;
    if (!row) return null;
    return row.erased_at !== null || row.sealed_key === null ? 'erased' : row.sealed_key;
  };

  return {
    async get(ownerId) {
      return get(ownerId);
    },
    async create(ownerId, sealedKey, at) {
      insert.run(ownerId, sealedKey, at);
      return get(ownerId)!;
    },
    async erase(ownerId, at) {
      const erased = Number(erase.run(ownerId, at, at).changes) > 0;
      if (erased && !db.isTransaction) {
        // The deleted key's page images may still sit in the WAL: copy them back and empty it (best effort:
        // a reader in another process may hold it, and then the next checkpoint does it).
        db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      }
      return erased;
    },
    async list() {
      return (listKeys.all() as { owner_id: string; sealed_key: string }[]).map((row) => ({
        ownerId: row.owner_id,
        sealedKey: row.sealed_key,
      }));
    },
    async reseal(ownerId, sealedKey) {
      return Number(reseal.run(sealedKey, ownerId).changes) > 0;
    },
  };
};
