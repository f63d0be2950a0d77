import type { Logger } from 'pino';
import type { EventBus } from '../../infrastructure/bus/event-bus.ts';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import type { CheckpointStore } from '../../infrastructure/event-sourcing/checkpoints.ts';
import type { ProjectionGroupMember } from '../../infrastructure/event-sourcing/projection-group.ts';
import {
  startProjectionRunner,
  type ProjectionRunner,
} from '../../infrastructure/event-sourcing/projection-runner.ts';
import { createPublicEventMapper, type Topics } from './public-events.ts';

export const eventRelayName = 'event-relay';

/**
 * The relay as a member of a projection group: publishes a batch's public events. Its position is saved
 * with the group's next write, so the read models' checkpoint never waits on Kafka; a crash in between
 * publishes one batch again, which at-least-once allows.
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

/**
 * The log is the outbox: the relay follows it from its checkpoint and publishes the public events on the
 * bus, advancing the checkpoint only once the bus has them. A crash in between publishes that batch again:
 * at least once, and consumers deduplicate by event id.
 */
export const startEventRelay = ({
  eventStore,
  checkpoints,
  bus,
  topics,
  logger,
  minBatchIntervalMs = 0,
}: {
  eventStore: EventStore;
  checkpoints: CheckpointStore;
  bus: EventBus;
  topics: Topics;
  logger: Logger;
  /** See ProjectionRunnerOptions: fewer, larger batches under load, for that much delay. */
  minBatchIntervalMs?: number;
}): Promise<ProjectionRunner> => {
  const { apply } = eventRelayMember({ eventStore, bus, topics });
  return startProjectionRunner({
    name: eventRelayName,
    eventStore,
    checkpoints,
    logger,
    minBatchIntervalMs,
    apply,
  });
};
