/**
 * What authentication needs of the accounts the identity feature keeps (identity/users.ts fills
 * it): the mechanism here knows accounts by id and e-mail, their roles as names and their revocations, and
 * nothing of what else a user has.
 */

/** What of an account's access tokens is refused, as of a moment (entries past their `until` are gone). */
export type AccessRevocations = {
  /** Sessions (refresh-token families) whose access tokens are refused. */
  sessions: string[];
  /** Access tokens, by `jti`, that are refused. */
  tokens: string[];
  /** Every access token issued at or before this moment is refused; null when none is. */
  before: string | null;
};

/** What every authenticated request relies on of its account: one read. */
export type AccountAccess = { roles: readonly string[]; disabled: boolean; revoked: AccessRevocations };

/** An account as signing in sees it. */
export type Account = { id: string; passwordHash: string; roles: readonly string[]; disabled: boolean };

/**
 * How long what a process knows of an account may be used: a user disabled, removed or stripped of a role
 * stops working on every route of every process within this (plus one store read), access tokens already
 * issued included. The guarantee documented is 5 seconds.
 */
export const accountAccessMaxAgeMs = 1_000;

export type Accounts = {
  findById(id: string): Promise<Account | null>;
  /** By the e-mail signed in with (the username), as given. */
  findByEmail(email: string): Promise<Account | null>;
  /** The account's roles, whether it is disabled, and its revocations still in force at `now`; null: none. */
  accessOf(id: string, now: string): Promise<AccountAccess | null>;
  /**
   * Refuses, until `until` (when they would have expired anyway), the access tokens of these sessions and
   * these access tokens. Entries past their `until` at `at` may be dropped.
   */
  revokeAccess(
    id: string,
    revoke: { sessions?: readonly string[]; tokens?: readonly string[]; at: string; until: string },
  ): Promise<void>;
  /**
   * Refuses every access token issued at or before `at`, until `until` (by when all of them have expired).
   * The latest such moment in force wins.
   */
  revokeAccessBefore(id: string, revoke: { at: string; until: string }): Promise<void>;
};
