import type { Logger } from 'pino';
import { isSealedText } from '../../domain/shared/personal-data.ts';
import type { CheckpointStore } from '../../infrastructure/event-sourcing/checkpoints.ts';
import { checkpointNames, orderProjectionName } from '../projection-names.ts';
import type { OrderReadModel } from './order-read-model.ts';
import type { OrderView } from './order-projection.ts';

const checkpoint = checkpointNames[orderProjectionName];
/** The checkpoint of version 2 of the fold (shipment, bare sealed tokens). */
const version2Checkpoint = 'orders-v2';

/**
 * Whether the order read model holds documents of this version of the fold: it does exactly when the
 * checkpoint of this version is stored (an empty one has none either, and nothing to be wrong about).
 */
export const orderReadModelIsCurrent = async (checkpoints: CheckpointStore) =>
  (await checkpoints.load(checkpoint)) !== undefined;

/**
 * What the fold before this version (checkpoint `orders`, the releases before versioned events) stored of
 * an order: everything but `shipment`, which it did not know. projections:verify compares a read model that
 * version built with this of a replay, field by field, so that a read model built before an upgrade is
 * checked against the log as the new release reads it (every event through the codec, upcast) before the
 * start that rebuilds it. Of a delivered order it kept no shipped time, so it cannot answer with
 * `shipment`: served as it is, it would leave that out, hence the rebuild.
 */
export const asEarlierOrderView = ({ shipment: _shipment, ...earlier }: OrderView): OrderView =>
  asVersion2OrderView(earlier);

/** Every sealed field (`{"sealed": token}`) of a value as its bare token, as version 2 of the fold stored it. */
const withBareTokens = (value: unknown): unknown => {
  if (isSealedText(value)) return value.sealed;
  if (Array.isArray(value)) return value.map(withBareTokens);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, withBareTokens(field)]));
};

/**
 * What version 2 of the fold (checkpoint `orders-v2`, the first personal-data release) stored of an order:
 * the same, but with each sealed field as its bare token string.
 */
export const asVersion2OrderView = (view: OrderView): OrderView => withBareTokens(view) as OrderView;

/** How projections:verify reads a read model an earlier version of the fold built: the view of that version. */
export const earlierOrderViewOf = async (
  checkpoints: CheckpointStore,
): Promise<(view: OrderView) => OrderView> =>
  (await checkpoints.load(version2Checkpoint)) !== undefined ? asVersion2OrderView : asEarlierOrderView;

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
