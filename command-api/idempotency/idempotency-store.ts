/**
 * Idempotency keys (the Idempotency-Key header of POST /orders and payments): the first request with a
 * key claims it; its response is kept for 24 h and replayed to a retry with the same request; a retry
 * while the first is still running is told so.
 */

/** Keys are scoped per user: two users may pick the same key. */
export type IdempotencyScope = { userId: string; key: string };

/** What was answered, as sent. */
export type StoredResponse = { status: number; headers: Record<string, string>; body: string };

export type IdempotencyClaim =
  /** The key is this request's now: run it, then complete or release the claim. */
  | { outcome: 'claimed' }
  /** Another request holds the key and is still running. */
  | { outcome: 'in-progress'; fingerprint: string }
  /** A request with this key finished: replay its response if the fingerprints match. */
  | { outcome: 'completed'; fingerprint: string; response: StoredResponse };

export type ClaimTimes = {
  now: Date;
  /** When the key may be used afresh (24 h after the first request). */
  expiresAt: Date;
  /** When a claim whose request never finished (the process died) may be taken over. */
  leaseUntil: Date;
};

export type IdempotencyStore = {
  /** Claims the key atomically: of concurrent claims, exactly one is `claimed`. Expired keys are free. */
  claim(scope: IdempotencyScope, fingerprint: string, times: ClaimTimes): Promise<IdempotencyClaim>;
  /** Stores the response of a claimed request. */
  complete(scope: IdempotencyScope, fingerprint: string, response: StoredResponse): Promise<void>;
  /** Gives a claimed key up without a response (the request failed on the server's side). */
  release(scope: IdempotencyScope, fingerprint: string): Promise<void>;
  /** Deletes the keys expired at `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>;
};
