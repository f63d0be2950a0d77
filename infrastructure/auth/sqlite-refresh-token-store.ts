import type { DatabaseSync } from 'node:sqlite';
import { addMissingColumns } from '../sqlite/add-missing-columns.ts';
import type { RefreshTokenRecord, RefreshTokenStore, Session } from './refresh-tokens.ts';

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

/** Columns added after the first release: stores made before get them at open (null until used). */
const addedColumns = { session_started_at: 'TEXT', client_address: 'TEXT', user_agent: 'TEXT' };

type Row = {
  token_hash: string;
  family_id: string;
  user_id: string;
  issued_at: string;
  expires_at: string;
  used_at: string | null;
  family_revoked_at: string | null;
  session_started_at: string | null;
  client_address: string | null;
  user_agent: string | null;
};

const toRecord = (row: Row): RefreshTokenRecord => ({
  tokenHash: row.token_hash,
  familyId: row.family_id,
  userId: row.user_id,
  issuedAt: row.issued_at,
  expiresAt: row.expires_at,
  usedAt: row.used_at,
  familyRevokedAt: row.family_revoked_at,
  sessionStartedAt: row.session_started_at ?? row.issued_at,
  clientAddress: row.client_address,
  userAgent: row.user_agent,
});

const toSession = (row: Row): Session => ({
  id: row.family_id,
  startedAt: row.session_started_at ?? row.issued_at,
  lastUsedAt: row.issued_at,
  expiresAt: row.expires_at,
  clientAddress: row.client_address,
  userAgent: row.user_agent,
});

export const createSqliteRefreshTokenStore = (db: DatabaseSync): RefreshTokenStore => {
  db.exec(schema);
  addMissingColumns(db, 'refresh_tokens', addedColumns);
  // A token saved into a family that was revoked meanwhile is born revoked.
  const insert = db.prepare(
    `INSERT INTO refresh_tokens (token_hash, family_id, user_id, issued_at, expires_at, session_started_at,
       client_address, user_agent, family_revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT max(family_revoked_at) FROM refresh_tokens WHERE family_id = ?))`,
  );
  const find = db.prepare('SELECT * FROM refresh_tokens WHERE token_hash = ?');
  const markUsed = db.prepare(
    'UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL',
  );
  const revokeFamily = db.prepare(
    'UPDATE refresh_tokens SET family_revoked_at = ? WHERE family_id = ? AND family_revoked_at IS NULL',
  );
  const revokeUser = db.prepare(
    `UPDATE refresh_tokens SET family_revoked_at = ? WHERE user_id = ? AND family_revoked_at IS NULL
     RETURNING family_id`,
  );
  const sessions = db.prepare(
    `SELECT * FROM refresh_tokens
     WHERE user_id = ? AND used_at IS NULL AND expires_at > ? AND family_revoked_at IS NULL
     ORDER BY issued_at DESC, family_id`,
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
        token.sessionStartedAt,
        token.clientAddress,
        token.userAgent,
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
      const revoked = revokeUser.all(revokedAt, userId) as { family_id: string }[];
      return [...new Set(revoked.map((row) => row.family_id))].sort();
    },
    async listSessions(userId, now) {
      return (sessions.all(userId, now) as Row[]).map(toSession);
    },
    async deleteExpired(before) {
      return Number(deleteExpired.run(before).changes);
    },
  };
};
