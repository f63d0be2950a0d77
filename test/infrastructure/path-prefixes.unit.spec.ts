import { describe, expect, it } from 'vitest';
import { isUnderAny } from '../../infrastructure/http/path-prefixes.ts';

describe('isUnderAny', () => {
  const prefixes = ['/orders', '/auth/'];

  it.each(['/orders', '/orders/', '/orders/1', '/orders/1/confirm', '/auth/', '/auth/token'])(
    '%s is under them',
    (path) => expect(isUnderAny(path, prefixes)).toBe(true),
  );

  it.each(['/', '/order', '/ordersfoo', '/Orders', '/auth', '/authx', '/x/orders', ''])('%s is not', (path) =>
    expect(isUnderAny(path, prefixes)).toBe(false),
  );

  it('holds nothing under no prefixes', () => expect(isUnderAny('/orders', [])).toBe(false));
});
