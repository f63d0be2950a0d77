import type { Logger } from 'pino';
import type { ReadStores } from '../assembly/read-stores.ts';
import { startProjectionRunner } from '../infrastructure/event-sourcing/projection-runner.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import { emptyOutdatedOrderReadModel } from '../projections/orders/order-read-model-version.ts';
import { ordersProjection } from '../projections/orders/orders-projection.ts';

/**
 * The order read model in the embedded default: emptied first when its stored version is outdated (the log
 * rebuilds it), then kept up by a projection runner in this process.
 */
export const startEmbeddedOrderProjection = async ({
  eventStore,
  stores,
  logger,
  config,
}: {
  config: { projectionBatchIntervalMs: number };
  eventStore: EventStore;
  stores: Pick<ReadStores, 'orders' | 'checkpoints'>;
  logger: Logger;
}) => {
  const readModel = await stores.orders();
  const checkpoints = stores.checkpoints();
  await emptyOutdatedOrderReadModel({ readModel, checkpoints, logger });
  const progress = await startProjectionRunner({
    ...ordersProjection(readModel),
    eventStore,
    checkpoints,
    logger,
    // Under a stream of orders, a batch (and a checkpoint write) per interval rather than per event.
    minBatchIntervalMs: config.projectionBatchIntervalMs,
  });
  return { readModel, progress };
};
