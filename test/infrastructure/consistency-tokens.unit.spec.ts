import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  consistencyTokenFormat,
  createConsistencyTokens,
} from '../../infrastructure/http/consistency-tokens.ts';

const tokens = createConsistencyTokens(randomBytes(32));

describe('Consistency-Tokens bound to their caller', () => {
  it('issues `<position>.<MAC>`, short and URL-safe, that reads back as its position for its caller', () => {
    for (const position of [1n, 42n, 2n ** 63n + 12345n]) {
      const token = tokens.issue(position, 'user-1');
      expect(token).toMatch(consistencyTokenFormat);
      expect(token).toMatch(/^\d+\.[A-Za-z0-9_-]{22}$/);
      expect(tokens.positionOf(token, 'user-1')).toBe(position);
      expect(tokens.positionOf(` ${token} `, 'user-1')).toBe(position);
    }
  });

  it('names nothing for another caller, another position, another key, or a token that is not one', () => {
    const token = tokens.issue(42n, 'user-1');
    const mac = token.slice(token.indexOf('.') + 1);
    const refused = [
      [token, 'user-2'],
      [token, 'user-1 '],
      [`43.${mac}`, 'user-1'],
      [`042.${mac}`, 'user-1'],
      [`4.${mac}`, 'user-1'],
      // Each last character: the one issued is skipped below.
      ...[...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].map(
        (last) => [`42.${mac.slice(0, -1)}${last}`, 'user-1'] as const,
      ),
      [createConsistencyTokens(randomBytes(32)).issue(42n, 'user-1'), 'user-1'],
      ['42', 'user-1'],
      ['42.', 'user-1'],
      [`42.${mac}.x`, 'user-1'],
      ['', 'user-1'],
      ['yesterday', 'user-1'],
    ];
    for (const [sent, caller] of refused) {
      if (sent === token && caller === 'user-1') continue;
      expect(tokens.positionOf(sent, caller), `${sent} for ${caller}`).toBeNull();
    }
  });

  it('binds the position and the caller apart: no other split of the same characters verifies', () => {
    const token = tokens.issue(12n, '3user');
    expect(tokens.positionOf(token.replace(/^12/, '123'), 'user')).toBeNull();
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => createConsistencyTokens(randomBytes(16))).toThrow(/32 bytes/);
  });
});
