import { createRouter } from '../../infrastructure/http/router.ts';

import { z } from 'zod';
import { authenticate, principalOf } from '../../infrastructure/auth/authenticate.ts';
import { authorize } from '../authorize.ts';
import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import {
  InvalidPositionError,
  type EventStore,
  type GlobalPosition,
  type RecordedEvent,
} from '../../infrastructure/event-store/event-store.ts';
import { validationFailed } from '../../infrastructure/http/api-error.ts';
import { sendRevealedJson, type Reveal } from '../../infrastructure/personal-data/revealed.ts';
import type { SecretCipher } from '../../infrastructure/crypto/secret-cipher.ts';
import { openWebhookUrl, webhookUrlOrigin, type StoredWebhookUrl } from '../../webhooks/webhook-url.ts';
import { parseInput } from '../../infrastructure/http/validation.ts';
import { eventResource } from './event-resource.ts';
import { positionBeforeTime } from './position-at-time.ts';

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

const instant = z.iso.datetime({
  offset: true,
  error: 'must be a date-time with its offset, e.g. 2026-11-27T09:00:00Z',
});

export const auditQuery = z.strictObject({
  after: position.optional(),
  from: instant.optional().meta({ description: 'Only the events recorded at or after this instant.' }),
  until: instant.optional().meta({ description: 'Only the events recorded before this instant.' }),
  before: position.optional(),
  newest: z.literal('true', { error: 'must be true, or absent' }).optional().meta({
    description:
      'The latest `limit` events of the log (in log order within the page, the prev link to older ones): where an operator starts reading. Not with after or before.',
  }),
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000'))
    .prefault('100')
    // The document says what a client sends: an integer (read from the query string as its decimal digits).
    .meta({ type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
});

const latest = (a: GlobalPosition | undefined, b: GlobalPosition | undefined) =>
  a === undefined ? b : b === undefined || a > b ? a : b;
const earliest = (a: GlobalPosition, b: GlobalPosition | undefined) => (b === undefined || a < b ? a : b);

/** The positions a span of time lies between (each exclusive), where `from` or `until` was given. */
const timeSpan = async (eventStore: EventStore, from?: string, until?: string) => {
  const at = async (field: 'from' | 'until', time: string) =>
    positionBeforeTime(eventStore, Date.parse(time)).catch((error: unknown) => {
      if (error instanceof InvalidPositionError) {
        throw validationFailed([
          { field, message: 'this event log (EventStoreDB) is read by position only: use after or before' },
        ]);
      }
      throw error;
    });
  return {
    after: from === undefined ? undefined : await at('from', from),
    // The events from `until` on are those after its position: the span ends just past it.
    before: until === undefined ? undefined : (await at('until', until)) + 1n,
  };
};

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
      const query = parseInput(auditQuery, request.query, 'query');
      const { limit } = query;
      if (query.after !== undefined && query.before !== undefined) {
        throw validationFailed([{ field: 'before', message: 'use either after or before, not both' }]);
      }
      if (query.newest !== undefined && (query.after !== undefined || query.before !== undefined)) {
        throw validationFailed([{ field: 'newest', message: 'use newest without after or before' }]);
      }
      // The newest events: those before the highest position a log can hold.
      const asked = query.newest === undefined ? query.before : eventStore.maxPosition;
      const beyond = Object.entries({ after: query.after, before: asked }).filter(
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
      // A span of time is a span of positions: the events after `from` begins, and before `until` does.
      const span = await timeSpan(eventStore, query.from, query.until);
      const after = latest(query.after, span.after);
      const before = asked === undefined ? span.before : earliest(asked, span.before);
      const inSpan = (event: RecordedEvent) =>
        (span.after === undefined || event.position > span.after) &&
        (span.before === undefined || event.position < span.before);
      let events: RecordedEvent[];
      let moreOlder: boolean;
      let moreNewer: boolean;
      if (before !== undefined && asked !== undefined) {
        const page = (
          await eventStore.readAllBackwards({ before, maxCount: limit + 1 }).catch(refusedAs('before'))
        ).filter(inSpan);
        moreOlder = page.length > limit;
        events = page.slice(0, limit).reverse();
        const last = events.at(-1);
        // The newest page has nothing newer (yet): no next link; nor has a page that ends where the span does.
        moreNewer =
          query.newest === undefined &&
          last !== undefined &&
          (span.before === undefined ||
            (await eventStore.readAll({ after: last.position, maxCount: 1 })).some(inSpan));
      } else {
        const page = (
          await eventStore
            .readAll({ ...(after === undefined ? {} : { after }), maxCount: limit + 1 })
            .catch(refusedAs('after'))
        ).filter(inSpan);
        moreNewer = page.length > limit;
        events = page.slice(0, limit);
        const first = events[0];
        moreOlder =
          first !== undefined &&
          (await eventStore.readAllBackwards({ before: first.position, maxCount: 1 })).some(inSpan);
      }
      const link = (bound: 'after' | 'before', event: RecordedEvent | undefined) =>
        event === undefined
          ? null
          : `/audit/events?${new URLSearchParams({
              [bound]: event.position.toString(),
              limit: String(limit),
              ...(query.from === undefined ? {} : { from: query.from }),
              ...(query.until === undefined ? {} : { until: query.until }),
            }).toString()}`;
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
