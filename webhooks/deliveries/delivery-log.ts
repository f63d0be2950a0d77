/**
 * Every delivery attempt, as an admin reads it under GET /webhooks/{id}/deliveries: newest first, with
 * the receiver's status code, how long it took, and what came of it.
 */
export type AttemptOutcome =
  /** 2xx within the time limit. */
  | 'delivered'
  /** Any other answer (3xx included: redirects are not followed). */
  | 'failed'
  | 'timeout'
  | 'network-error'
  /** The URL resolved to an address webhooks may not reach. */
  | 'refused'
  /** 410 Gone: the subscription was disabled. */
  | 'gone'
  /** The subscription was inactive or removed when the delivery came up: nothing was sent. */
  | 'cancelled';

export type DeliveryAttempt = {
  /** Increasing with each attempt (a UUIDv7): orders attempts made at the same instant. */
  id: string;
  deliveryId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  /** 1 for the first attempt of the delivery (counting again from 1 after an admin's retry). */
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  statusCode: number | null;
  outcome: AttemptOutcome;
  /** Why it failed, in words, when there is no status code to say it. */
  error: string | null;
  /** The start of the receiver's answer, at most 64 kB. */
  responseBody: string | null;
  responseBodyTruncated: boolean;
  /** When the delivery is tried again; null when it will not be. */
  nextAttemptAt: string | null;
  /** The retry schedule ran out: the delivery waits for an admin's retry. */
  deadLettered: boolean;
  /**
   * The request that was sent; absent from attempts recorded before it was kept, and from a cancelled
   * attempt (nothing was sent).
   */
  request?: SentRequest;
};

/**
 * The request of an attempt: its headers (names lower-cased; the signature cut to its version and first 8
 * characters, so no usable signature is kept) and its JSON body with the personal fields sealed as the
 * delivery keeps them (opened on the way out, "[erased]" once erased).
 */
export type SentRequest = { headers: Record<string, string>; body: unknown };

/** A place in the log, newest first: stable under new attempts, since it names an attempt. */
export type AttemptCursor = { attemptedAt: string; id: string };

/** Only the attempts with this outcome, of this event type (each when given). */
export type AttemptFilter = { outcome?: AttemptOutcome; eventType?: string };

/** How many of a subscription's latest attempts its delivery stats are over. */
export const statsOverAttempts = 50;

/**
 * How a subscription's latest attempts went (at most `statsOverAttempts`, newest first): how many there
 * are, how many delivered, their share delivered, and the newest one's outcome and time (null before any).
 */
export type DeliveryStats = {
  attempts: number;
  delivered: number;
  /** delivered / attempts, from 0 to 1; null when there is no attempt. */
  successRate: number | null;
  lastOutcome: AttemptOutcome | null;
  lastAttemptAt: string | null;
};

/** The stats of a subscription without any attempt. */
export const noDeliveryStats: DeliveryStats = {
  attempts: 0,
  delivered: 0,
  successRate: null,
  lastOutcome: null,
  lastAttemptAt: null,
};

/** The stats from counts and the newest attempt, as both adapters make them. */
export const deliveryStatsOf = (
  attempts: number,
  delivered: number,
  last: { outcome: AttemptOutcome; attemptedAt: string } | null,
): DeliveryStats =>
  attempts === 0 || last === null
    ? noDeliveryStats
    : {
        attempts,
        delivered,
        successRate: delivered / attempts,
        lastOutcome: last.outcome,
        lastAttemptAt: last.attemptedAt,
      };

export type DeliveryLog = {
  record(attempt: DeliveryAttempt): Promise<void>;
  /** Several attempts in one write (one round trip); one recorded before is left as it is. */
  recordAll(attempts: readonly DeliveryAttempt[]): Promise<void>;
  /**
   * Newest first (attemptedAt, then id, descending), after or before a cursor; hasMore beyond the page;
   * the total counts the attempts the filter lets through.
   */
  list(
    subscriptionId: string,
    query: { limit: number } & AttemptFilter &
      ({ kind: 'page'; offset: number } | { kind: 'cursor'; after?: AttemptCursor; before?: AttemptCursor }),
  ): Promise<{ attempts: DeliveryAttempt[]; hasMore: boolean; total?: number }>;
  /**
   * Each subscription's stats over its latest `statsOverAttempts` attempts (newest first by attemptedAt,
   * then id, as `list`), for a whole list of subscriptions in one read; one without attempts gets
   * `noDeliveryStats`. Keyed by subscription id, every one asked for present.
   */
  statsOf(subscriptionIds: readonly string[]): Promise<Map<string, DeliveryStats>>;
};
