import type { DatabaseSync } from 'node:sqlite';
import type { RefreshTokenRecord, RefreshTokenStore } from './refresh-tokens.ts';

const schema = `
  CREATE TABLE IF NOT EXISTS refresh_tokens (
    token_hash        TEXT PRIMARY KEY,
    family_id         TEXT NOT NULL,
    user_id           TEXT NOT NULL,
    issued_at         TEXT NOT NULL,
    expires_at        TEXT NOT NULL,
    used_at           TEXT,
    family_revoked_at TEXT
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS refresh_tokens_family ON refresh_tokens (family_id);
  CREATE INDEX IF NOT EXISTS refresh_tokens_user ON refresh_tokens (user_id);
  CREATE INDEX IF NOT EXISTS refresh_tokens_expiry ON refresh_tokens (expires_at);
`;

type Row = {
  token_hash: string;
  family_id: string;
  user_id: string;
  issued_at: string;
  expires_at: string;
  used_at: string | null;
  family_revoked_at: string | null;
};

const toRecord = (row: Row): RefreshTokenRecord => ({
  tokenHash: row.token_hash,
  familyId: row.family_id,
  userId: row.user_id,
  issuedAt: row.issued_at,
  expiresAt: row.expires_at,
  usedAt: row.used_at,
  familyRevokedAt: row.family_revoked_at,
});

export const createSqliteRefreshTokenStore = (db: DatabaseSync): RefreshTokenStore => {
  db.exec(schema);
  // A token saved into a family that was revoked meanwhile is born revoked.
  const insert = db.prepare(
    `INSERT INTO refresh_tokens (token_hash, family_id, user_id, issued_at, expires_at, family_revoked_at)
     VALUES (?, ?, ?, ?, ?, (SELECT max(family_revoked_at) FROM refresh_tokens WHERE family_id = ?))`,
  );
  const find = db.prepare('SELECT * FROM refresh_tokens WHERE token_hash = ?');
  const markUsed = db.prepare(
    'UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL',
  );
  const revokeFamily = db.prepare(
    'UPDATE refresh_tokens SET family_revoked_at = ? WHERE family_id = ? AND family_revoked_at IS NULL',
  );
  const revokeUser = db.prepare(
    'UPDATE refresh_tokens SET family_revoked_at = ? WHERE user_id = ? AND family_revoked_at IS NULL',
  );
  const deleteExpired = db.prepare('DELETE FROM refresh_tokens WHERE expires_at < ?');

  return {
    async save(token) {
      insert.run(
        token.tokenHash,
        token.familyId,
        token.userId,
        token.issuedAt,
        token.expiresAt,
        token.familyId,
      );
    },
    async find(tokenHash) {
      const row = find.get(tokenHash) as Row | undefined;
      return row ? toRecord(row) : null;
    },
    async markUsed(tokenHash, usedAt) {
      return markUsed.run(usedAt, tokenHash).changes === 1;
    },
    async revokeFamily(familyId, revokedAt) {
      revokeFamily.run(revokedAt, familyId);
    },
    async revokeAllOfUser(userId, revokedAt) {
      revokeUser.run(revokedAt, userId);
    },
    async deleteExpired(before) {
      return Number(deleteExpired.run(before).changes);
    },
  };
};
