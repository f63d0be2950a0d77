import { describe, expect, it } from 'vitest';
import { cacheControlFor, type CacheableAnswer } from '../../infrastructure/http/cache-control.ts';

// The rules of docs/caching.md as one pure function: what a sender sets for an answer about to go out.
const policy = { privatePaths: ['/orders', '/auth/'], publicPaths: ['/products'] };
const answer = (fields: Partial<CacheableAnswer>): CacheableAnswer => ({
  method: 'GET',
  path: '/products/1',
  status: 200,
  chosen: undefined,
  ...fields,
});
const ruleFor = (fields: Partial<CacheableAnswer>) => cacheControlFor(answer(fields), policy);

describe('the Cache-Control rules', () => {
  it('0: a 5xx is no-store everywhere, over what the handler chose', () => {
    expect(ruleFor({ status: 500, chosen: 'public, max-age=60' })).toBe('no-store');
    expect(ruleFor({ status: 503, path: '/orders' })).toBe('no-store');
  });

  it('0: 408, 413 and 429 are no-store, with the private words on a private path', () => {
    for (const status of [408, 413, 429]) {
      expect(ruleFor({ status, chosen: 'public, s-maxage=60' })).toBe('no-store');
      expect(ruleFor({ status, path: '/orders/1' })).toBe('private, no-cache, no-store');
    }
  });

  it('1: a method other than GET and HEAD is no-store', () => {
    expect(ruleFor({ method: 'POST', status: 201 })).toBe('no-store');
    expect(ruleFor({ method: 'DELETE', path: '/orders/1', status: 204 })).toBe('no-store');
    expect(ruleFor({ method: 'HEAD' })).toBe('public, s-maxage=300');
  });

  it('2: a private path is private, no-cache over what the handler chose, errors too', () => {
    expect(ruleFor({ path: '/orders/1', chosen: 'public, max-age=300' })).toBe('private, no-cache');
    expect(ruleFor({ path: '/orders', status: 404 })).toBe('private, no-cache');
    expect(ruleFor({ path: '/auth/token', status: 400 })).toBe('private, no-cache');
    // A prefix covers itself and what is below it, not a longer segment.
    expect(ruleFor({ path: '/ordersfoo' })).toBeUndefined();
  });

  it("3: a public path's success, 304 or 404 is shared unless the handler chose; its other errors are not", () => {
    expect(ruleFor({})).toBe('public, s-maxage=300');
    expect(ruleFor({ status: 304 })).toBe('public, s-maxage=300');
    expect(ruleFor({ status: 404 })).toBe('public, s-maxage=300');
    expect(ruleFor({ chosen: 'public, s-maxage=60' })).toBe('public, s-maxage=60');
    expect(ruleFor({ status: 400, chosen: 'public, s-maxage=60' })).toBe('no-store');
    expect(ruleFor({ status: 412 })).toBe('no-store');
  });

  it('4: another error is no-store unless its handler chose; a 412 always', () => {
    expect(ruleFor({ path: '/webhooks', status: 403 })).toBe('no-store');
    expect(ruleFor({ path: '/webhooks', status: 404 })).toBe('no-store');
    expect(ruleFor({ path: '/webhooks', status: 404, chosen: 'private, no-cache' })).toBe(
      'private, no-cache',
    );
    expect(ruleFor({ path: '/webhooks', status: 412, chosen: 'private, no-cache' })).toBe('no-store');
  });

  it('leaves a success elsewhere as its handler chose, or without one', () => {
    expect(ruleFor({ path: '/webhooks' })).toBeUndefined();
    expect(ruleFor({ path: '/webhooks', chosen: 'private, no-cache' })).toBe('private, no-cache');
  });
});
