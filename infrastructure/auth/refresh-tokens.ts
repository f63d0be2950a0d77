/**
 * Refresh tokens are opaque and single use; only their SHA-256 hash is stored. Each login starts a family,
 * each refresh replaces the presented token by a new one of the same family, and presenting a used token
 * again revokes the whole family (RFC 9700, section 4.14.2: refresh token reuse detection).
 */
export type RefreshTokenRecord = {
  tokenHash: string;
  familyId: string;
  userId: string;
  issuedAt: string;
  expiresAt: string;
  /** When the family (the session) began: the login. */
  sessionStartedAt: string;
  /** Who asked for this token: the client's address and user agent (null when not known). */
  clientAddress: string | null;
  userAgent: string | null;
  /** Set once, when the token is exchanged; a second exchange is a reuse. */
  usedAt: string | null;
  /** Set on every token of the family when the family is revoked. */
  familyRevokedAt: string | null;
};

/** A session: a refresh-token family with a token that can still be exchanged. */
export type Session = {
  /** The family's id. */
  id: string;
  startedAt: string;
  /** When its live token was issued: the login or the last refresh. */
  lastUsedAt: string;
  expiresAt: string;
  clientAddress: string | null;
  userAgent: string | null;
};

export type RefreshTokenStore = {
  save(token: Omit<RefreshTokenRecord, 'usedAt' | 'familyRevokedAt'>): Promise<void>;
  find(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Atomically marks an unused token used; false when it was used already (by a racing request too). */
  markUsed(tokenHash: string, usedAt: string): Promise<boolean>;
  revokeFamily(familyId: string, revokedAt: string): Promise<void>;
  /** Revokes every family of the user that was not revoked yet; returns their ids. */
  revokeAllOfUser(userId: string, revokedAt: string): Promise<string[]>;
  /** The user's sessions at `now`: families not revoked with an unused, unexpired token; newest first. */
  listSessions(userId: string, now: string): Promise<Session[]>;
  /** Drops tokens that expired before the given time; returns how many. */
  deleteExpired(before: string): Promise<number>;
};
