import type { EventBus } from '../../infrastructure/bus/event-bus.ts';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import type { ProjectionGroupMember } from '../../infrastructure/event-sourcing/projection-group.ts';
import { createPublicEventMapper, type Topics } from './public-events.ts';

export const eventRelayName = 'event-relay';

/**
 * The log is the outbox: the relay follows it and publishes the public events on the bus, as a member of a
 * projection group (the subscriptions' in the embedded default, the read models' in the projections
 * process). Its position is saved with the group's next write, so the read models' checkpoint never waits
 * on Kafka; a crash in between publishes one batch again, which at-least-once allows (consumers deduplicate
 * by event id).
 */
export const eventRelayMember = ({
  eventStore,
  bus,
  topics,
}: {
  eventStore: EventStore;
  bus: EventBus;
  topics: Topics;
}): ProjectionGroupMember => {
  const mapper = createPublicEventMapper({ eventStore, topics });
  return {
    name: eventRelayName,
    savedWithNextBatch: true,
    async apply(events) {
      for (const [topic, messages] of await mapper.toMessages(events)) await bus.publish(topic, messages);
    },
  };
};
