import type { Logger } from 'pino';
import { createCheckpointProgress } from '../infrastructure/event-sourcing/checkpoint-progress.ts';
import type { CheckpointStore } from '../infrastructure/event-sourcing/checkpoints.ts';
import {
  checkpointNames,
  orderProjectionName,
  subscriptionProjectionName,
} from '../projections/projection-names.ts';

/**
 * Where the projections are when they run in another process: their stored checkpoints. A query with a
 * Consistency-Token waits on them (polled every `pollIntervalMs` while someone waits); readiness and the
 * metrics read them once each time.
 */
export const storedProjectionProgress = ({
  checkpoints,
  pollIntervalMs,
  logger,
}: {
  checkpoints: CheckpointStore;
  pollIntervalMs: number;
  logger: Logger;
}) => {
  const progressOf = (projection: string) =>
    createCheckpointProgress({
      checkpoints,
      projection,
      pollIntervalMs,
      onError: (error) => logger.warn({ err: error, projection }, 'could not read a projection checkpoint'),
    });
  const checkpointOf = (projection: string) => async () => (await checkpoints.load(projection)) ?? null;
  const orders = progressOf(checkpointNames[orderProjectionName]);
  const subscriptions = progressOf(checkpointNames[subscriptionProjectionName]);
  return {
    orders,
    subscriptions,
    positions: {
      [orderProjectionName]: checkpointOf(checkpointNames[orderProjectionName]),
      [subscriptionProjectionName]: checkpointOf(checkpointNames[subscriptionProjectionName]),
    },
    stop() {
      orders.stop();
      subscriptions.stop();
    },
  };
};
