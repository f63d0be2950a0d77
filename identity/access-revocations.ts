import type { AccessRevocations } from '../infrastructure/auth/accounts.ts';

/**
 * One revocation as the user stores keep it: the access tokens of a session, one access token, or every
 * access token issued at or before a moment (`id` is that moment). Kept until `until`, when whatever it
 * refuses has expired anyway.
 */
export type Revocation = { kind: 'session' | 'token' | 'before'; id: string };

/** The revocations in force, as the port answers them: sorted ids, and the latest `before`. */
export const revokedAccess = (entries: readonly Revocation[]): AccessRevocations => {
  const ids = (kind: Revocation['kind']) =>
    [...new Set(entries.filter((entry) => entry.kind === kind).map((entry) => entry.id))].sort();
  return { sessions: ids('session'), tokens: ids('token'), before: ids('before').at(-1) ?? null };
};
