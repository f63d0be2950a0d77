import { createHmac, timingSafeEqual } from 'node:crypto';
import type { GlobalPosition } from '../event-store/event-store.ts';

/**
 * A Consistency-Token as sent: `<position>.<MAC>`, the log position of a command's last event (a decimal
 * string: positions exceed 2^53) and a MAC binding it to the caller it was issued to. URL- and header-safe.
 */
export const consistencyTokenFormat = /^(\d{1,40})\.([A-Za-z0-9_-]{22})$/;

/** 16 bytes of HMAC-SHA256: forging one for a position is a guess in 2^128. */
const macBytes = 16;

/**
 * Issues and reads the Consistency-Tokens of the service (docs/orders.md, "Read your writes"). A token
 * names a position in the log and is bound, by a MAC under a key shared by the processes that issue tokens
 * (the command API) and read them (the query API), to the user it was issued to. A token that does not
 * verify for its caller (forged, altered, another caller's, or one of before tokens were bound) names
 * nothing: the query API answers it as malformed whatever its position, so that no caller learns the log's
 * head (the shop's order volume) by trying positions.
 */
export type ConsistencyTokens = {
  /** The token of `position` for the user `userId`. */
  issue(position: GlobalPosition, userId: string): string;
  /** The position the token names when it was issued to `userId` by this service; null otherwise. */
  positionOf(token: string, userId: string): GlobalPosition | null;
};

export const createConsistencyTokens = (key: Buffer): ConsistencyTokens => {
  if (key.length !== 32) throw new Error('the Consistency-Token key must be 32 bytes');
  // The purpose and the parts are framed, so that no other MAC under this key, and no other split of the
  // same characters into position and user id, gives the same bytes.
  const mac = (position: string, userId: string): Buffer =>
    createHmac('sha256', key)
      .update(`consistency-token\n${position}\n${userId}`)
      .digest()
      .subarray(0, macBytes);
  return {
    issue(position, userId) {
      const digits = position.toString();
      return `${digits}.${mac(digits, userId).toString('base64url')}`;
    },
    positionOf(token, userId) {
      const parsed = consistencyTokenFormat.exec(token.trim());
      if (!parsed) return null;
      const [, digits, sent] = parsed as unknown as [string, string, string];
      // Compared as text: the last character of 16 bytes in base64url has bits no byte holds, and only the
      // encoding issued is the token.
      const expected = Buffer.from(mac(digits, userId).toString('base64url'));
      const given = Buffer.from(sent);
      return given.length === expected.length && timingSafeEqual(given, expected) ? BigInt(digits) : null;
    },
  };
};
