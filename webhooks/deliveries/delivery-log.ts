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
};

/** A place in the log, newest first: stable under new attempts, since it names an attempt. */
export type AttemptCursor = { attemptedAt: string; id: string };

/** Only the attempts with this outcome, of this event type (each when given). */
export type AttemptFilter = { outcome?: AttemptOutcome; eventType?: string };

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
};
