import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { principalOf } from '../../infrastructure/auth/authenticate.ts';
import { canonicalJson } from '../../infrastructure/canonical-json.ts';
import type { Clock } from '../../infrastructure/clock.ts';
import { sendAnswer, type Answer } from '../../infrastructure/http/answer.ts';
import { ApiError, validationFailed } from '../../infrastructure/http/api-error.ts';
import { problemAnswer, problemFor, sendProblem } from '../../infrastructure/http/problem-details.ts';
import { strongEtag } from '../../infrastructure/http/representation.ts';
import { withLegacyTokensSealed } from '../../infrastructure/personal-data/field-cipher.ts';
import { ownedEtag } from '../../infrastructure/personal-data/revealed.ts';
import type { PersonalDataKeyring } from '../../infrastructure/personal-data/keyring.ts';
import type { IdempotencyScope, IdempotencyStore, StoredResponse } from './idempotency-store.ts';

export const idempotencyKeyFormat = /^[\x21-\x7e]{1,255}$/;
/** The headers a replay repeats: what the client needs to carry on as if it had the first answer. */
const replayedHeaders = [
  'content-type',
  'location',
  'etag',
  'last-modified',
  'consistency-token',
  'retry-after',
];

/** What makes two requests with one key the same request: method, path and body (keys in any order). */
export const requestFingerprint = (method: string, path: string, body: unknown): string =>
  createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('base64url');

/** What a replay needs of the personal-data keyring. */
type Opening = Pick<PersonalDataKeyring, 'reveal' | 'erasedIn'>;

/**
 * The ETag of a kept answer whose bytes an erasure changed: an order's (ownedEtag, from its sealed form) is
 * the erased one a read of the same order gives now; any other, the hash of the new bytes.
 */
const etagSinceErasure = (etag: string, sealed: string, body: string): string =>
  etag === ownedEtag(sealed, 'opens') ? ownedEtag(sealed, 'erased') : strongEtag(Buffer.from(body));

/**
 * The kept answer again, its sealed personal fields opened (or "[erased]" since): the same bytes and ETag
 * as the first answer's, until an erasure changes the bytes and so the ETag (etagSinceErasure).
 */
const replay = async (response: Response, stored: StoredResponse, personalData: Opening) => {
  // Kept sealed; one kept by the first personal-data release holds bare tokens (withLegacyTokensSealed).
  const sealed = withLegacyTokensSealed(stored.body);
  const body = await personalData.reveal(sealed);
  const headers = { ...stored.headers };
  if (await personalData.erasedIn(sealed)) {
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() === 'etag') headers[name] = etagSinceErasure(headers[name]!, stored.body, body);
    }
  }
  response.status(stored.status).set(headers).set('Idempotent-Replayed', 'true').end(body);
};

/** What is kept of an answer: its status, the headers a replay repeats (as written), the sealed body. */
const keptOf = ({ status, headers, body, kept }: Answer): StoredResponse => ({
  status,
  headers: Object.fromEntries(
    Object.entries(headers).filter(([name]) => replayedHeaders.includes(name.toLowerCase())),
  ),
  body: kept ?? (typeof body === 'string' ? body : body.toString('utf8')),
});

/** A handler whose answer is a value (answer.ts): what an idempotent route runs. */
export type AnswerHandler = (request: Request, response: Response) => Promise<Answer>;

/**
 * The Idempotency-Key header (draft-ietf-httpapi-idempotency-key-header): the first request with a key
 * runs and its answer is kept for 24 h; the same key with the same request replays that answer, with a
 * different request answers 422, and while the first still runs answers 409. Answers of 5xx are not kept:
 * the key is released, so the client's retry runs again. Goes after authenticate: keys are per user.
 */
export const idempotent = ({
  store,
  clock,
  logger,
  personalData,
  ttlMs = 24 * 3_600_000,
  leaseMs = 60_000,
}: {
  store: IdempotencyStore;
  /** Opens the sealed personal fields of a kept answer (it is kept sealed), and tells an erasure since. */
  personalData: Opening;
  clock: Clock;
  logger: Logger;
  ttlMs?: number;
  leaseMs?: number;
}) => {
  /** The answer stays as it is whether or not it could be kept; the claim then lapses with its lease. */
  const keeping = async (write: () => Promise<void>) => {
    try {
      await write();
    } catch (error) {
      logger.error({ err: error }, 'could not store the answer of an idempotent request');
    }
  };

  return (handle: AnswerHandler): RequestHandler =>
    async (request, response) => {
      const key = request.get('Idempotency-Key');
      if (key === undefined) return sendAnswer(response, await handle(request, response));
      if (!idempotencyKeyFormat.test(key)) {
        throw validationFailed([
          { field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' },
        ]);
      }
      const scope: IdempotencyScope = { userId: principalOf(response).userId, key };
      const fingerprint = requestFingerprint(request.method, request.path, request.body);
      const now = clock.now();
      const claim = await store.claim(scope, fingerprint, {
        now,
        expiresAt: new Date(now.getTime() + ttlMs),
        leaseUntil: new Date(now.getTime() + leaseMs),
      });
      if (claim.outcome !== 'claimed' && claim.fingerprint !== fingerprint) {
        throw new ApiError(
          'idempotency-key-mismatch',
          'This Idempotency-Key was used for a different request. Use a new key for a new request.',
        );
      }
      if (claim.outcome === 'in-progress') {
        throw new ApiError('conflict', 'A request with this Idempotency-Key is still being processed.', {
          headers: { 'Retry-After': '1' },
        });
      }
      if (claim.outcome === 'completed') return replay(response, claim.response, personalData);

      let answer: Answer;
      try {
        answer = await handle(request, response);
      } catch (error) {
        // The key's answer is whatever the request answered, a refusal too; a 5xx is not kept (the key is
        // released, so that the client's retry runs again) and goes to the error handler as any error.
        const { body, headers } = problemFor(request, error);
        if (body.status >= 500) {
          await keeping(() => store.release(scope, fingerprint));
          throw error;
        }
        await keeping(() => store.complete(scope, fingerprint, keptOf(problemAnswer(body, headers))));
        return sendProblem(response, body, headers);
      }
      // Kept before it goes out: a retry that follows the answer finds it.
      await keeping(() => store.complete(scope, fingerprint, keptOf(answer)));
      sendAnswer(response, answer);
    };
};
