import type { Logger } from 'pino';
import { subscriptionDecider } from '../domain/webhook-subscriptions/subscription-decider.ts';
import { subscriptionStreamName } from '../domain/webhook-subscriptions/subscription.ts';
import { createCommandHandler } from '../infrastructure/event-sourcing/command-handler.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import { subscriptionCodec } from '../domain/webhook-subscriptions/subscription-codec.ts';
import type { DeadLetter, EventBus } from '../infrastructure/bus/event-bus.ts';
import type { Topics } from '../projections/relay/public-events.ts';
import type { WebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/subscription-read-model.ts';
import { createEventAcceptor } from './accept-events.ts';
import type { DeliveryLog } from '../webhooks/deliveries/delivery-log.ts';
import type { DeliveryMetrics } from './delivery-metrics.ts';
import type { DeliveryQueue } from '../webhooks/deliveries/delivery-queue.ts';
import { startDeliveryWorker } from './delivery-worker.ts';
import { createSubscriptionCache } from './subscription-cache.ts';
import type { WebhookPoster } from '../infrastructure/outbound-http/webhook-poster.ts';
import type { RetryPolicy } from './retry-policy.ts';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import type { Reveal } from '../infrastructure/personal-data/revealed.ts';

export const dispatcherGroup = 'webhook-dispatcher';

export type WebhookDispatcherDeps = {
  bus: EventBus;
  topics: Topics;
  subscriptions: WebhookSubscriptionReadModel;
  subscriptionsReached: (position: bigint) => Promise<void>;
  queue: DeliveryQueue;
  log: DeliveryLog;
  cipher: SecretCipher;
  /** Opens the sealed personal fields of a body just before it is sent. */
  reveal: Reveal;
  poster: WebhookPoster;
  retryPolicy: RetryPolicy;
  /** Where a subscription whose receiver answered 410 Gone is disabled: its stream in the log. */
  eventStore: EventStore;
  now: () => Date;
  newId: () => string;
  logger: Logger;
  /** Counts delivery attempts by outcome (webhook_deliveries_total). */
  metrics: DeliveryMetrics;
  instanceId?: string;
  /** How long a claimed delivery is this dispatcher's before another may take it over. */
  leaseMs?: number;
  /** How often the worker looks in the store when nothing woke it (real ms); see DeliveryWorkerDeps. */
  safetyPollMs?: number;
  /** The consumer group; several dispatchers in one group share the work. Default 'webhook-dispatcher'. */
  group?: string;
};

/**
 * The webhook dispatcher: consumes the public events in its consumer group, hands each to the durable
 * retry state (only then may the bus move on), and delivers from there.
 */
export const startWebhookDispatcher = async (deps: WebhookDispatcherDeps) => {
  const logger = deps.logger.child({ component: 'webhook-dispatcher' });
  const group = deps.group ?? dispatcherGroup;
  const subscriptions = createCommandHandler({
    eventStore: deps.eventStore,
    codec: subscriptionCodec,
    decider: subscriptionDecider,
    newId: deps.newId,
  });
  const cache = createSubscriptionCache({
    subscriptions: deps.subscriptions,
    subscriptionsReached: deps.subscriptionsReached,
  });
  const worker = startDeliveryWorker({
    queue: deps.queue,
    log: deps.log,
    subscriptions: cache,
    cipher: deps.cipher,
    reveal: deps.reveal,
    poster: deps.poster,
    retryPolicy: deps.retryPolicy,
    now: deps.now,
    logger,
    metrics: deps.metrics,
    ...(deps.instanceId === undefined ? {} : { instanceId: deps.instanceId }),
    ...(deps.leaseMs === undefined ? {} : { leaseMs: deps.leaseMs }),
    ...(deps.safetyPollMs === undefined ? {} : { safetyPollMs: deps.safetyPollMs }),
    async disableSubscription(subscriptionId, reason) {
      const disabledAt = deps.now().toISOString();
      const correlationId = deps.newId();
      await subscriptions.handle(
        subscriptionStreamName(subscriptionId),
        { type: 'DisableSubscription', data: { subscriptionId, reason, disabledAt } },
        { metadata: { actor: null, correlationId, causationId: null, occurredAt: disabledAt } },
      );
      logger.warn({ subscriptionId }, 'webhook subscription disabled: the receiver answered 410 Gone');
    },
  });
  const accept = createEventAcceptor({
    topics: deps.topics,
    subscriptions: cache,
    enqueue: worker.enqueue,
    queue: deps.queue,
    wake: worker.wake,
    fence: worker.fence,
    async deadLetter({ topic, key, value }, reason) {
      const letter: DeadLetter = { reason, group, topic, key, value };
      await deps.bus.publish(deps.topics.deadLetter, [{ key, value: JSON.stringify(letter) }]);
    },
    now: () => deps.now().getTime(),
    logger,
  });
  const consumer = await deps.bus.consume({
    group,
    topics: [deps.topics.orderEvents, deps.topics.webhookRequests],
    handle: accept,
  });
  return {
    async stop() {
      await consumer.stop();
      await worker.stop();
    },
  };
};
