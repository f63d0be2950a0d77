import { createRouter } from '../../infrastructure/http/router.ts';

import { z } from 'zod';
import { authenticate, principalOf } from '../../infrastructure/auth/authenticate.ts';
import { authorize } from '../authorize.ts';
import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import {
  InvalidPositionError,
  type EventStore,
  type RecordedEvent,
} from '../../infrastructure/event-store/event-store.ts';
import { validationFailed } from '../../infrastructure/http/api-error.ts';
import { sendRevealedJson, type Reveal } from '../../infrastructure/personal-data/revealed.ts';
import type { SecretCipher } from '../../infrastructure/crypto/secret-cipher.ts';
import { openWebhookUrl, webhookUrlOrigin, type StoredWebhookUrl } from '../../webhooks/webhook-url.ts';
import { parseInput } from '../../infrastructure/http/validation.ts';
import { eventResource } from './event-resource.ts';

const position = z
  .string()
  .regex(/^\d{1,40}$/, 'must be a log position, as in a position member')
  .transform(BigInt);

/**
 * A position the client sent that the log refused (one it never issued: 5 on EventStoreDB, whose positions
 * are packed pairs) is the client's mistake, named by its parameter: a 400, not a failed read.
 */
const refusedAs =
  (field: 'after' | 'before') =>
  (error: unknown): never => {
    if (error instanceof InvalidPositionError) {
      throw validationFailed([
        { field, message: 'names no position of the log: use a position member or a link as given' },
      ]);
    }
    throw error;
  };

export const auditQuery = z.strictObject({
  after: position.optional(),
  before: position.optional(),
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000'))
    .prefault('100')
    // The document says what a client sends: an integer (read from the query string as its decimal digits).
    .meta({ type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
});

/**
 * GET /audit/events: the whole log in log order, for auditors and admins, in the cursor envelope. `after`
 * (exclusive) pages forward; the prev link pages back with `before` (exclusive).
 */
export type AuditDeps = {
  eventStore: EventStore;
  authenticator: Authenticator;
  /** Opens the personal fields the log keeps sealed ("[erased]" once erased). */
  reveal: Reveal;
  /** Opens sealed webhook URLs: for admins; auditors read their origin. */
  webhookCipher: Pick<SecretCipher, 'open'>;
};

export const auditRoutes = ({ eventStore, authenticator, reveal, webhookCipher }: AuditDeps) => {
  const router = createRouter();

  router.get(
    '/audit/events',
    authenticate(authenticator),
    authorize('listAuditEvents'),
    async (request, response) => {
      const { after, before, limit } = parseInput(auditQuery, request.query, 'query');
      if (after !== undefined && before !== undefined) {
        throw validationFailed([{ field: 'before', message: 'use either after or before, not both' }]);
      }
      const beyond = Object.entries({ after, before }).filter(
        ([, position]) => position !== undefined && position > eventStore.maxPosition,
      );
      if (beyond.length > 0) {
        throw validationFailed(
          beyond.map(([field]) => ({
            field,
            message: `must be a log position, at most ${eventStore.maxPosition.toString()}`,
          })),
        );
      }
      let events: RecordedEvent[];
      let moreOlder: boolean;
      let moreNewer: boolean;
      if (before !== undefined) {
        const page = await eventStore
          .readAllBackwards({ before, maxCount: limit + 1 })
          .catch(refusedAs('before'));
        moreOlder = page.length > limit;
        events = page.slice(0, limit).reverse();
        moreNewer = events.length > 0;
      } else {
        const page = await eventStore
          .readAll({ ...(after === undefined ? {} : { after }), maxCount: limit + 1 })
          .catch(refusedAs('after'));
        moreNewer = page.length > limit;
        events = page.slice(0, limit);
        const first = events[0];
        moreOlder =
          first !== undefined &&
          (await eventStore.readAllBackwards({ before: first.position, maxCount: 1 })).length > 0;
      }
      const link = (bound: 'after' | 'before', event: RecordedEvent | undefined) =>
        event === undefined ? null : `/audit/events?${bound}=${event.position.toString()}&limit=${limit}`;
      const principal = principalOf(response);
      const viewer = {
        userId: principal.userId,
        seesEveryActor: true,
        // Admins read webhook URLs whole, as GET /webhooks shows them; auditors their origin.
        webhookUrl: principal.roles.includes('admin')
          ? (url: StoredWebhookUrl, subscriptionId: string) =>
              openWebhookUrl(webhookCipher, url, subscriptionId)
          : webhookUrlOrigin,
      };
      response.set('Cache-Control', 'private, no-cache');
      await sendRevealedJson(reveal, request, response, {
        meta: { perPage: limit },
        links: {
          next: moreNewer ? link('after', events.at(-1)) : null,
          prev: moreOlder ? link('before', events[0]) : null,
        },
        data: events.map((event) => eventResource(event, viewer)),
      });
    },
  );

  return router;
};
