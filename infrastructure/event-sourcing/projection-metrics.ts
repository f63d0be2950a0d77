import { Gauge, type Registry } from 'prom-client';
import type { EventStore } from '../event-store/event-store.ts';
import { withTimeout } from '../operations/with-timeout.ts';
import { eventsBehind, type ProjectionPosition } from './projection-lag.ts';

/** The gauges count at most this many events behind the head: a scrape never reads more of the log. */
export const lagCountLimit = 10_000;

/** How long one scrape waits for a lag; past it (or on an error) the gauge reads NaN: unknown. */
const lagTimeoutMs = 2000;

const lagOf = (eventStore: EventStore, position: ProjectionPosition) =>
  withTimeout((async () => eventsBehind(eventStore, await position(), lagCountLimit))(), lagTimeoutMs).catch(
    () => Number.NaN,
  );

/**
 * projection_lag_events{projection} for the read models a process runs or reads, and, where the process
 * runs the relay, kafka_relay_lag_events: events between each one's checkpoint and the head of the log,
 * counted when scraped.
 */
export const registerProjectionMetrics = ({
  registry,
  eventStore,
  projections,
  relay,
}: {
  registry: Registry;
  eventStore: EventStore;
  projections: Record<string, ProjectionPosition>;
  relay?: ProjectionPosition;
}): void => {
  new Gauge({
    name: 'projection_lag_events',
    help: `Events between a read model's checkpoint and the head of the event log (counted up to ${lagCountLimit}).`,
    labelNames: ['projection'] as const,
    registers: [registry],
    async collect() {
      const names = Object.keys(projections);
      const lags = await Promise.all(names.map((name) => lagOf(eventStore, projections[name]!)));
      names.forEach((name, index) => this.set({ projection: name }, lags[index]!));
    },
  });
  if (!relay) return;
  new Gauge({
    name: 'kafka_relay_lag_events',
    help:
      "Events between the relay's checkpoint and the head of the event log: public events not yet on the " +
      `bus (Kafka; in-process in the embedded default), counted up to ${lagCountLimit}.`,
    registers: [registry],
    async collect() {
      this.set(await lagOf(eventStore, relay));
    },
  });
};
