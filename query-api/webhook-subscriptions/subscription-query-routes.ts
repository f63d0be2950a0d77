import type { Request, Router } from 'express';
import { createRouter } from '../../infrastructure/http/router.ts';
import { z } from 'zod';
import { authenticate } from '../../infrastructure/auth/authenticate.ts';
import { authorize } from '../authorize.ts';
import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import type { Operation } from '../../domain/identity/permissions.ts';
import { notFound, validationFailed } from '../../infrastructure/http/api-error.ts';
import { uuidParam } from '../../infrastructure/http/path-params.ts';
import { sendJson } from '../../infrastructure/http/representation.ts';
import { sendRevealedJson, type Reveal } from '../../infrastructure/personal-data/revealed.ts';
import { parseInput } from '../../infrastructure/http/validation.ts';
import type { GlobalPosition } from '../../infrastructure/event-store/event-store.ts';
import type { ProjectionProgress } from '../../infrastructure/event-sourcing/projection-progress.ts';
import type { WebhookSubscriptionReadModel } from '../../projections/webhook-subscriptions/subscription-read-model.ts';
import { subscriptionResource, type Subscription } from '../../webhooks/subscription-view.ts';
import { openWebhookUrl, type StoredWebhookUrl } from '../../webhooks/webhook-url.ts';
import type { SecretCipher } from '../../infrastructure/crypto/secret-cipher.ts';
import {
  noDeliveryStats,
  type AttemptOutcome,
  type DeliveryAttempt,
  type DeliveryLog,
} from '../../webhooks/deliveries/delivery-log.ts';
import type { DeliveryQueue } from '../../webhooks/deliveries/delivery-queue.ts';
import { pendingDeliveryResource } from '../../webhooks/deliveries/pending-delivery-resource.ts';
import { cursorLinks, decodeCursor, encodeCursor } from '../pagination/cursor.ts';
import { paginationQuery, positiveInt } from '../pagination/pagination-query.ts';
import { readYourWrites } from '../read-your-writes.ts';
import type { ConsistencyTokens } from '../../infrastructure/http/consistency-tokens.ts';

export type WebhookQueryDeps = {
  subscriptions: WebhookSubscriptionReadModel;
  deliveryLog: DeliveryLog;
  /** The dispatcher's retry state: the deliveries not settled yet. */
  deliveryQueue: Pick<DeliveryQueue, 'pendingOf'>;
  /** The subscription projection's progress, for Consistency-Token. */
  progress: ProjectionProgress;
  /** The log's last position, to refuse a Consistency-Token beyond it. */
  headPosition: () => Promise<GlobalPosition | null>;
  authenticator: Authenticator;
  consistencyTimeoutMs: number;
  /** Reads the Consistency-Tokens the command side issued to each caller. */
  consistencyTokens: Pick<ConsistencyTokens, 'positionOf'>;
  /** Opens the sealed URLs: admins read them whole. */
  webhookCipher: Pick<SecretCipher, 'open'>;
  /** Opens the personal fields of the bodies the attempts sent ("[erased]" once erased). */
  reveal: Reveal;
};

const noSuchSubscription = 'There is no webhook subscription with this id.';
const subscriptionIdParam = (request: Request) => uuidParam(request, 'subscriptionId', noSuchSubscription);
const attemptOutcomes = [
  'delivered',
  'failed',
  'timeout',
  'network-error',
  'refused',
  'gone',
  'cancelled',
] as const satisfies readonly AttemptOutcome[];
export const deliveriesQuery = z.strictObject({
  ...paginationQuery,
  outcome: z.enum(attemptOutcomes).optional().meta({ description: 'Only the attempts with this outcome.' }),
  eventType: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Only the attempts of this event type, e.g. order.shipped or webhook.test.' }),
});

export const pendingDeliveriesQuery = z.strictObject({
  limit: positiveInt(100)
    .prefault('50')
    .meta({ default: 50, description: 'How many, oldest first: from 1 to 100 (default 50).' }),
});

/** Admin configuration: kept by the admin's browser only, revalidated on each use. */
const adminOnly = { 'Cache-Control': 'private, no-cache' };

/**
 * Webhook management, the query side: subscriptions from their read model (never a secret), delivery
 * attempts from the delivery log, newest first, in either envelope.
 */
export const webhookQueryRoutes = ({
  subscriptions,
  deliveryLog,
  deliveryQueue,
  progress,
  headPosition,
  authenticator,
  consistencyTimeoutMs,
  consistencyTokens,
  webhookCipher,
  reveal,
}: WebhookQueryDeps): Router => {
  const router = createRouter();
  const auth = authenticate(authenticator);
  const consistent = readYourWrites(progress, consistencyTimeoutMs, headPosition, consistencyTokens);
  const admin = (operation: Operation) => [auth, authorize(operation), consistent];
  const openUrl = (url: StoredWebhookUrl, subscriptionId: string) =>
    openWebhookUrl(webhookCipher, url, subscriptionId);

  const subscriptionFor = async (request: Request) => {
    const subscription = await subscriptions.get(subscriptionIdParam(request));
    if (!subscription) throw notFound(noSuchSubscription);
    return subscription;
  };

  /** The subscriptions as admins read them: each with how its latest attempts went, read for all at once. */
  const withStats = async (views: readonly Subscription[]) => {
    const stats = await deliveryLog.statsOf(views.map((view) => view.id));
    return views.map((view) => ({
      ...subscriptionResource(view, openUrl),
      deliveryStats: stats.get(view.id) ?? noDeliveryStats,
    }));
  };

  router.get('/webhooks', ...admin('listWebhooks'), async (request, response) => {
    response.set(adminOnly);
    sendJson(request, response, await withStats(await subscriptions.list()));
  });

  router.get('/webhooks/:subscriptionId', ...admin('getWebhook'), async (request, response) => {
    response.set(adminOnly);
    const [resource] = await withStats([await subscriptionFor(request)]);
    sendJson(request, response, resource);
  });

  router.get(
    '/webhooks/:subscriptionId/deliveries',
    ...admin('listWebhookDeliveries'),
    async (request, response) => {
      const { id } = await subscriptionFor(request);
      const query = parseInput(deliveriesQuery, request.query, 'query');
      response.set(adminOnly);
      if (query.page !== undefined && query.cursor !== undefined) {
        throw validationFailed([{ field: 'cursor', message: 'use either page or cursor, not both' }]);
      }
      const filter = {
        ...(query.outcome === undefined ? {} : { outcome: query.outcome }),
        ...(query.eventType === undefined ? {} : { eventType: query.eventType }),
      };
      if (query.cursor === undefined) {
        const page = query.page ?? 1;
        const { attempts, total } = await deliveryLog.list(id, {
          ...filter,
          kind: 'page',
          offset: (page - 1) * query.perPage,
          limit: query.perPage,
        });
        return sendRevealedJson(reveal, request, response, {
          meta: { total: total ?? 0, page, perPage: query.perPage },
          data: attempts,
        });
      }
      const decoded = query.cursor === '' ? undefined : decodeCursor(query.cursor);
      if (query.cursor !== '' && !decoded) {
        throw validationFailed([{ field: 'cursor', message: 'is not a cursor from a links member' }]);
      }
      const at = decoded && { attemptedAt: decoded.at.createdAt, id: decoded.at.id };
      const { attempts, hasMore } = await deliveryLog.list(id, {
        ...filter,
        kind: 'cursor',
        limit: query.perPage,
        ...(decoded && at ? (decoded.direction === 'after' ? { after: at } : { before: at }) : {}),
      });
      const link = (direction: 'after' | 'before', attempt: DeliveryAttempt | undefined) =>
        attempt
          ? `/webhooks/${id}/deliveries?${new URLSearchParams({
              cursor: encodeCursor(direction, { createdAt: attempt.attemptedAt, id: attempt.id }),
              perPage: String(query.perPage),
              ...filter,
            }).toString()}`
          : null;
      await sendRevealedJson(reveal, request, response, {
        meta: { perPage: query.perPage },
        links: cursorLinks({ direction: decoded?.direction, hasMore, items: attempts, link }),
        data: attempts,
      });
    },
  );

  router.get(
    '/webhooks/:subscriptionId/deliveries/pending',
    ...admin('listPendingWebhookDeliveries'),
    async (request, response) => {
      const { limit } = parseInput(pendingDeliveriesQuery, request.query, 'query');
      const { id, status } = await subscriptionFor(request);
      const { deliveries, more } = await deliveryQueue.pendingOf(id, limit);
      response.set(adminOnly);
      const data = deliveries.map(pendingDeliveryResource(status === 'active'));
      sendJson(request, response, { meta: { limit, more }, data });
    },
  );

  return router;
};
