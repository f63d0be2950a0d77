import type { ProjectionGroupMember } from '../../infrastructure/event-sourcing/projection-group.ts';
import { checkpointNames, orderProjectionName } from '../projection-names.ts';
import type { OrderReadModel } from './order-read-model.ts';

/** The orders projection, as a process runs it (alone or in a group): its name, checkpoint and read model. */
export const ordersProjection = (readModel: Pick<OrderReadModel, 'applyEvents'>): ProjectionGroupMember => ({
  name: orderProjectionName,
  checkpoint: checkpointNames[orderProjectionName],
  apply: (events) => readModel.applyEvents(events),
});
