import { describe, expect, it } from 'vitest';
import { createRetryPolicy, parseRetryAfter } from '../../webhook-dispatcher/retry-policy.ts';

describe('retry policy', () => {
  it('follows the schedule, varied by at most ±20 %, then dead-letters', () => {
    const low = createRetryPolicy({ scheduleMs: [1000, 5000], random: () => 0 });
    const high = createRetryPolicy({ scheduleMs: [1000, 5000], random: () => 0.999999 });
    expect(low.afterFailure(1)).toEqual({ retryInMs: 800 });
    expect(high.afterFailure(1)).toEqual({ retryInMs: 1200 });
    expect(low.afterFailure(2)).toEqual({ retryInMs: 4000 });
    expect(low.afterFailure(3)).toEqual({ deadLetter: true });
  });

  it('waits as long as Retry-After asks, up to six hours, within the same bounded number of attempts', () => {
    const policy = createRetryPolicy({ scheduleMs: [1000], random: () => 0.5 });
    expect(policy.afterFailure(1, 30_000)).toEqual({ retryInMs: 30_000 });
    expect(policy.afterFailure(1, 30 * 3_600_000)).toEqual({ retryInMs: 6 * 3_600_000 });
    expect(policy.afterFailure(2, 30_000)).toEqual({ deadLetter: true });
  });

  it('reads Retry-After as seconds or as an HTTP date, and ignores anything else', () => {
    const now = new Date('2026-11-21T10:00:00.000Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
