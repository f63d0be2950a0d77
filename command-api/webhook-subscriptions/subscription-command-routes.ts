import type { Request, Response, Router } from 'express';
import { createRouter } from '../../infrastructure/http/router.ts';
import { subscriptionDecider } from '../../domain/webhook-subscriptions/subscription-decider.ts';
import {
  subscriptionStreamName,
  type SubscriptionCommand,
} from '../../domain/webhook-subscriptions/subscription.ts';
import { authenticate, principalOf } from '../../infrastructure/auth/authenticate.ts';
import { authorize } from '../authorize.ts';
import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import type { Operation } from '../../domain/identity/permissions.ts';
import type { Clock } from '../../infrastructure/clock.ts';
import { createCommandHandler } from '../../infrastructure/event-sourcing/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import { acceptBody } from '../../infrastructure/http/accept-body.ts';
import type { ConsistencyTokens } from '../../infrastructure/http/consistency-tokens.ts';
import { notFound, validationFailed } from '../../infrastructure/http/api-error.ts';
import { uuidParam } from '../../infrastructure/http/path-params.ts';
import { parseInput } from '../../infrastructure/http/validation.ts';
import type { DeliveryQueue } from '../../webhooks/deliveries/delivery-queue.ts';
import { subscriptionCodec } from '../../domain/webhook-subscriptions/subscription-codec.ts';
import type { SubscriptionEvent } from '../../domain/webhook-subscriptions/subscription-events.ts';
import { openWebhookUrl, sealWebhookUrl, type StoredWebhookUrl } from '../../webhooks/webhook-url.ts';
import { subscriptionOf, subscriptionResource, type Subscription } from '../../webhooks/subscription-view.ts';
import { eventMetadataOf } from '../event-metadata.ts';
import type { SecretCipher } from '../../infrastructure/crypto/secret-cipher.ts';
import { generateWebhookSecret } from '../../infrastructure/outbound-http/standard-webhooks.ts';
import { WebhookTargetRefusedError } from '../../infrastructure/outbound-http/target-check.ts';
import {
  changeWebhookBody,
  recoverDeliveriesBody,
  recoveryLimit,
  registerWebhookBody,
  testWebhookBody,
} from './subscription-schemas.ts';
import { noBody } from '../orders/order-schemas.ts';

/** After a rotation the previous secret keeps signing beside the new one for 24 hours. */
export const secretOverlapMs = 24 * 60 * 60 * 1000;

export type WebhookCommandDeps = {
  eventStore: EventStore;
  authenticator: Authenticator;
  cipher: SecretCipher;
  /** Refuses a URL webhooks may not target (scheme, credentials, internal addresses after DNS). */
  checkUrl: (url: string) => Promise<URL>;
  deliveries: Pick<DeliveryQueue, 'get' | 'deadSince'>;
  clock: Clock;
  newId: () => string;
  /** Binds each answer's Consistency-Token to the caller. */
  consistencyTokens: Pick<ConsistencyTokens, 'issue'>;
};

const noSuchSubscription = 'There is no webhook subscription with this id.';
const subscriptionIdParam = (request: Request) => uuidParam(request, 'subscriptionId', noSuchSubscription);

/** The event with its URL (a registration's, a change's) mapped; any other event as it is. */
const withUrl = (
  event: SubscriptionEvent,
  map: (url: StoredWebhookUrl, subscriptionId: string) => StoredWebhookUrl,
): SubscriptionEvent => {
  if (event.type === 'WebhookSubscriptionRegistered') {
    return { ...event, data: { ...event.data, url: map(event.data.url, event.data.subscriptionId) } };
  }
  if (event.type === 'WebhookSubscriptionChanged' && event.data.changes.url !== undefined) {
    const url = map(event.data.changes.url, event.data.subscriptionId);
    return { ...event, data: { ...event.data, changes: { ...event.data.changes, url } } };
  }
  return event;
};

const live = (history: Parameters<typeof subscriptionOf>[0]): Subscription => {
  const subscription = subscriptionOf(history);
  if (subscription === null || subscription.status === 'removed') throw notFound(noSuchSubscription);
  return subscription;
};

/**
 * Webhook management, the command side: admin only. Every change is an event on
 * the subscription's stream; secrets are generated here, shown once, and stored sealed.
 */
export const webhookCommandRoutes = (deps: WebhookCommandDeps): Router => {
  const { cipher, clock, newId } = deps;
  const subscriptions = createCommandHandler({
    eventStore: deps.eventStore,
    // The decider compares URLs in the clear (a PATCH to the same URL records nothing): opened as read,
    // sealed before they are written.
    codec: {
      ...subscriptionCodec,
      decode: (stored) => {
        const event = subscriptionCodec.decode(stored);
        return event && withUrl(event, (url, id) => openWebhookUrl(cipher, url, id));
      },
    },
    seal: async (event) =>
      withUrl(event, (url, id) => (typeof url === 'string' ? sealWebhookUrl(cipher, url, id) : url)),
    decider: subscriptionDecider,
    newId,
  });
  const openUrl = (url: Subscription['url'], subscriptionId: string) =>
    openWebhookUrl(cipher, url, subscriptionId);
  const router = createRouter();
  const auth = authenticate(deps.authenticator);
  const admin = (operation: Operation) => [auth, authorize(operation)];

  const checkedUrl = async (url: string) => {
    try {
      return (await deps.checkUrl(url)).href;
    } catch (error) {
      if (error instanceof WebhookTargetRefusedError)
        throw validationFailed([{ field: 'url', message: error.message }]);
      throw error;
    }
  };

  const run = async (response: Response, command: (at: string) => SubscriptionCommand) => {
    const at = clock.now().toISOString();
    const decided = command(at);
    const handled = await subscriptions.handle(subscriptionStreamName(decided.data.subscriptionId), decided, {
      metadata: eventMetadataOf(response, at),
    });
    if (handled.position !== null) {
      response.set(
        'Consistency-Token',
        deps.consistencyTokens.issue(handled.position, principalOf(response).userId),
      );
    }
    return handled.history;
  };

  router.post('/webhooks', ...admin('registerWebhook'), acceptBody('json'), async (request, response) => {
    const body = parseInput(registerWebhookBody, request.body ?? {});
    const url = await checkedUrl(body.url);
    const subscriptionId = newId();
    const secret = generateWebhookSecret();
    const result = await run(response, (registeredAt) => ({
      type: 'RegisterSubscription',
      data: {
        subscriptionId,
        url,
        events: body.events,
        description: body.description ?? null,
        secret: cipher.seal(secret, subscriptionId),
        registeredAt,
      },
    }));
    response
      .status(201)
      .location(`/webhooks/${subscriptionId}`)
      .json({ ...subscriptionResource(live(result), openUrl), secret });
  });

  router.patch(
    '/webhooks/:subscriptionId',
    ...admin('changeWebhook'),
    acceptBody('merge-patch', 'json'),
    async (request, response) => {
      const subscriptionId = subscriptionIdParam(request);
      const { url, ...changes } = parseInput(changeWebhookBody, request.body ?? {});
      const checked = url === undefined ? {} : { url: await checkedUrl(url) };
      const result = await run(response, (changedAt) => ({
        type: 'ChangeSubscription',
        data: { subscriptionId, changes: { ...changes, ...checked }, changedAt },
      }));
      response.json(subscriptionResource(live(result), openUrl));
    },
  );

  router.delete('/webhooks/:subscriptionId', ...admin('removeWebhook'), async (request, response) => {
    const subscriptionId = subscriptionIdParam(request);
    await run(response, (removedAt) => ({ type: 'RemoveSubscription', data: { subscriptionId, removedAt } }));
    response.status(204).end();
  });

  router.post(
    '/webhooks/:subscriptionId/rotate-secret',
    ...admin('rotateWebhookSecret'),
    acceptBody('json'),
    async (request, response) => {
      parseInput(noBody, request.body ?? {});
      const subscriptionId = subscriptionIdParam(request);
      const secret = generateWebhookSecret();
      let previousSecretExpiresAt = '';
      const result = await run(response, (rotatedAt) => {
        previousSecretExpiresAt = new Date(Date.parse(rotatedAt) + secretOverlapMs).toISOString();
        return {
          type: 'RotateSecret',
          data: {
            subscriptionId,
            secret: cipher.seal(secret, subscriptionId),
            previousSecretExpiresAt,
            rotatedAt,
          },
        };
      });
      response.json({ ...subscriptionResource(live(result), openUrl), secret, previousSecretExpiresAt });
    },
  );

  router.post(
    '/webhooks/:subscriptionId/test',
    ...admin('testWebhook'),
    acceptBody('json'),
    async (request, response) => {
      const { eventType = 'webhook.test' } = parseInput(testWebhookBody, request.body ?? {});
      const subscriptionId = subscriptionIdParam(request);
      const result = await run(response, (requestedAt) => ({
        type: 'RequestTestDelivery',
        data: { subscriptionId, eventType, requestedAt },
      }));
      live(result);
      response.status(202).json({ subscriptionId, type: eventType, status: 'requested' });
    },
  );

  router.post(
    '/webhooks/:subscriptionId/deliveries/:deliveryId/retry',
    ...admin('retryWebhookDelivery'),
    acceptBody('json'),
    async (request, response) => {
      parseInput(noBody, request.body ?? {});
      const subscriptionId = subscriptionIdParam(request);
      const deliveryId = uuidParam(
        request,
        'deliveryId',
        'There is no delivery with this id for this subscription.',
      );
      const delivery = await deps.deliveries.get(deliveryId);
      if (!delivery || delivery.subscriptionId !== subscriptionId) {
        throw notFound('There is no delivery with this id for this subscription.');
      }
      await run(response, (requestedAt) => ({
        type: 'RequestRedelivery',
        data: { subscriptionId, deliveryId, requestedAt },
      }));
      response.status(202).json({ subscriptionId, deliveryId, status: 'requested' });
    },
  );

  // Svix's "recover": every dead-lettered delivery since a time, each retried as above. One delivered again is
  // pending, no longer dead: asking twice schedules nothing twice once the first request's events are handled.
  router.post(
    '/webhooks/:subscriptionId/deliveries/recover',
    ...admin('retryWebhookDelivery'),
    acceptBody('json'),
    async (request, response) => {
      const { since } = parseInput(recoverDeliveriesBody, request.body ?? {});
      const subscriptionId = subscriptionIdParam(request);
      const dead = await deps.deliveries.deadSince(subscriptionId, Date.parse(since), recoveryLimit + 1);
      const deliveryIds = dead.slice(0, recoveryLimit);
      const result = await run(response, (requestedAt) => ({
        type: 'RecoverDeliveries',
        data: { subscriptionId, deliveryIds, requestedAt },
      }));
      live(result);
      response.status(202).json({
        subscriptionId,
        since: new Date(since).toISOString(),
        scheduled: deliveryIds.length,
        more: dead.length > recoveryLimit,
        status: 'requested',
      });
    },
  );

  return router;
};
