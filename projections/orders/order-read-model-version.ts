import type { Logger } from 'pino';
import type { CheckpointStore } from '../../infrastructure/event-sourcing/checkpoints.ts';
import { checkpointNames, orderProjectionName } from '../projection-names.ts';
import type { OrderReadModel } from './order-read-model.ts';

const checkpoint = checkpointNames[orderProjectionName];

/**
 * Whether the order read model holds documents of this version of the fold: it does exactly when the
 * checkpoint of this version is stored (an empty one has none either, and nothing to be wrong about).
 */
export const orderReadModelIsCurrent = async (checkpoints: CheckpointStore) =>
  (await checkpoints.load(checkpoint)) !== undefined;

/**
 * Before the orders projection starts: a read model that an earlier version of the fold built (its
 * documents lack what this one stores, such as `shipment`) is emptied, so that the projection, finding no
 * checkpoint of its version, replays the whole log into it. Until it has caught up, queries with a
 * Consistency-Token wait, and /ready reports the lag.
 */
export const emptyOutdatedOrderReadModel = async ({
  readModel,
  checkpoints,
  logger,
}: {
  readModel: OrderReadModel;
  checkpoints: CheckpointStore;
  logger: Logger;
}) => {
  if (await orderReadModelIsCurrent(checkpoints)) return;
  await readModel.clear();
  logger.info(
    { projection: orderProjectionName, checkpoint },
    'order read model emptied: it is rebuilt from the log',
  );
};
