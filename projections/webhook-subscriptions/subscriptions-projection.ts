import type { ProjectionGroupMember } from '../../infrastructure/event-sourcing/projection-group.ts';
import { checkpointNames, subscriptionProjectionName } from '../projection-names.ts';
import type { WebhookSubscriptionReadModel } from './subscription-read-model.ts';

/** The webhook subscriptions projection, as a process runs it (alone or in a group). */
export const subscriptionsProjection = (
  readModel: Pick<WebhookSubscriptionReadModel, 'applyEvents'>,
): ProjectionGroupMember => ({
  name: subscriptionProjectionName,
  checkpoint: checkpointNames[subscriptionProjectionName],
  apply: (events) => readModel.applyEvents(events),
});
