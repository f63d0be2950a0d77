import { Counter, type Registry } from 'prom-client';
import type { EventStore } from './event-store.ts';

/** The event store, counting what this process appends in events_appended_total{type}. */
export const countingAppends = (eventStore: EventStore, registry: Registry): EventStore => {
  const appended = new Counter({
    name: 'events_appended_total',
    help: 'Events this process appended to the event log, by event type.',
    labelNames: ['type'] as const,
    registers: [registry],
  });
  return {
    ...eventStore,
    async appendToStream(streamId, events, options) {
      const result = await eventStore.appendToStream(streamId, events, options);
      for (const event of events) appended.inc({ type: event.type });
      return result;
    },
  };
};
