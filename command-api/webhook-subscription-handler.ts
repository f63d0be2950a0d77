import { subscriptionDecider } from '../domain/webhook-subscription/webhook-subscription-decider.ts';
import { subscriptionFromHistory } from '../domain/webhook-subscription/webhook-subscription-events.ts';
import {
  subscriptionStreamName,
  type SubscriptionCommand,
  type SubscriptionState,
} from '../domain/webhook-subscription/webhook-subscription.ts';
import {
  NO_STREAM,
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type GlobalPosition,
} from '../infrastructure/event-store/event-store.ts';

export type SubscriptionCommandResult = {
  subscription: SubscriptionState;
  /** Log position of the stream's last event: the Consistency-Token of the answer. */
  position: GlobalPosition | null;
};

/** Every retry lost the race to another writer of the same subscription. */
export class SubscriptionBusyError extends Error {
  readonly kind = 'subscription-busy';
}

/**
 * The one way subscriptions change, as orders do: read the stream, decide, append at the revision read,
 * and decide again on a conflict.
 */
export const createSubscriptionCommandHandler = ({
  eventStore,
  newId,
  maxAttempts = 5,
}: {
  eventStore: EventStore;
  newId: () => string;
  maxAttempts?: number;
}) => ({
  async handle(command: SubscriptionCommand, metadata: EventMetadata): Promise<SubscriptionCommandResult> {
    const streamId = subscriptionStreamName(command.data.subscriptionId);
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const history = await eventStore.readStream(streamId);
      const state = subscriptionFromHistory(history);
      const events = subscriptionDecider.decide(command, state);
      const subscription = events.reduce(subscriptionDecider.evolve, state);
      if (events.length === 0) return { subscription, position: null };
      try {
        const appended = await eventStore.appendToStream(
          streamId,
          events.map((event) => ({ id: newId(), type: event.type, data: event.data, metadata })),
          { expectedRevision: history.length === 0 ? NO_STREAM : history.length - 1 },
        );
        return { subscription, position: appended.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
    throw new SubscriptionBusyError(`subscription ${command.data.subscriptionId} changed on every attempt`);
  },
});

export type SubscriptionCommandHandler = ReturnType<typeof createSubscriptionCommandHandler>;
