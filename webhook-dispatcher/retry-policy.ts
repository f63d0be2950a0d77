import { defaultRetryScheduleMs } from '../infrastructure/config/webhook-environment.ts';

/** A Retry-After is honoured up to this; a receiver asking for more is retried at the cap. */
const maxRetryAfterMs = 6 * 3_600_000;

export type RetryDecision = { retryInMs: number } | { deadLetter: true };

/** Seconds, or an HTTP date; anything else is ignored. */
export const parseRetryAfter = (value: string | null, now: Date): number | null => {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
};

/**
 * When a failed delivery is tried again (docs/webhooks.md): exponential backoff with jitter on a
 * configurable schedule, then dead-lettered; 429 and 503 wait as long as Retry-After asks.
 */
export const createRetryPolicy = ({
  scheduleMs = defaultRetryScheduleMs,
  random = Math.random,
}: {
  scheduleMs?: readonly number[];
  /** In [0, 1): the jitter's source, injected so tests can pin it. */
  random?: () => number;
} = {}) => ({
  /**
   * After the `attempt`-th failed attempt (1-based): wait the schedule's step, varied by ±20 % so
   * receivers that failed together are not all retried in the same instant; past the schedule, dead-letter.
   */
  afterFailure(attempt: number, retryAfterMs: number | null = null): RetryDecision {
    const step = scheduleMs[attempt - 1];
    if (step === undefined) return { deadLetter: true };
    if (retryAfterMs !== null) return { retryInMs: Math.min(retryAfterMs, maxRetryAfterMs) };
    return { retryInMs: Math.round(step * (0.8 + 0.4 * random())) };
  },
});

export type RetryPolicy = ReturnType<typeof createRetryPolicy>;
