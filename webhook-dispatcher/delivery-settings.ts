import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../infrastructure/clock.ts';
import { createWebhookPoster } from '../infrastructure/outbound-http/webhook-poster.ts';
import { webhookTargets } from '../infrastructure/outbound-http/webhook-targets.ts';
import { createDeliveryMetrics } from './delivery-metrics.ts';
import { createRetryPolicy } from './retry-policy.ts';

/** How long the dispatcher waits for the subscription read model to reach an event before retrying it. */
const subscriptionsWaitMs = 30_000;

/**
 * What a dispatcher delivers with, from the webhook settings, the same in every process that runs one: the
 * poster (targets checked against the network policy, each POST timed out), the retry schedule, the clock,
 * ids, and the delivery counters on the process's metrics. The poster is closed by whoever stops it.
 */
export const deliverySettings = ({
  settings,
  clock,
  logger,
  metrics,
}: {
  settings: {
    allowPrivateNetworks: boolean;
    dnsServers: readonly string[] | null;
    timeoutMs: number;
    retryScheduleMs: readonly number[];
  };
  clock: Clock;
  logger: Logger;
  metrics: Registry;
}) => {
  const targets = webhookTargets(settings, logger);
  return {
    /** Refuses a URL webhooks may not target, for the feature's command half in the same process. */
    checkUrl: targets.checkUrl,
    poster: createWebhookPoster({ ...targets, timeoutMs: settings.timeoutMs }),
    retryPolicy: createRetryPolicy({ scheduleMs: settings.retryScheduleMs }),
    now: () => clock.now(),
    newId: randomUUID,
    logger,
    metrics: createDeliveryMetrics(metrics),
  };
};

/** Waits for the subscription projection to reach an event's position (else the event is retried). */
export const subscriptionsReachedBy =
  (progress: { waitFor: (position: bigint, timeoutMs: number) => Promise<boolean> }) =>
  async (position: bigint) => {
    if (!(await progress.waitFor(position, subscriptionsWaitMs))) {
      throw new Error(`the subscription projection has not reached ${position}`);
    }
  };
