import type { EventStore, GlobalPosition } from '../event-store/event-store.ts';
import type { ReadinessCheck } from '../operations/readiness.ts';

/** Where a projection is in the log (its checkpoint): null before it applied anything. */
export type ProjectionPosition = () => Promise<GlobalPosition | null>;

/**
 * How many events the log holds after `position`, counting no further than `limit`: how far a reader at
 * that position trails the head. Counted, not subtracted, because EventStoreDB positions are not
 * consecutive; the usual case, a reader at the head, costs one read of the head position.
 */
export const eventsBehind = async (
  eventStore: EventStore,
  position: GlobalPosition | null,
  limit: number,
): Promise<number> => {
  const head = await eventStore.headPosition();
  if (head === null || (position !== null && position >= head)) return 0;
  const after = await eventStore.readAll({
    ...(position === null ? {} : { after: position }),
    maxCount: limit,
  });
  return after.length;
};

/** Ready while every projection trails the head of the log by at most `maxLag` events. */
export const projectionLagCheck = ({
  eventStore,
  projections,
  maxLag,
}: {
  eventStore: EventStore;
  projections: Record<string, ProjectionPosition>;
  maxLag: number;
}): ReadinessCheck => {
  const names = Object.keys(projections);
  return async () => {
    const lags = await Promise.all(
      names.map(async (name) => eventsBehind(eventStore, await projections[name]!(), maxLag + 1)),
    );
    const behind = names.filter((_name, index) => lags[index]! > maxLag);
    if (behind.length === 0) {
      const detail = names.map((name, index) => `${name} ${lags[index]}`).join(', ');
      return { status: 'ok', detail: `events behind the log head: ${detail}` };
    }
    return {
      status: 'failing',
      detail: `more than ${maxLag} events behind the log head: ${behind.join(', ')}`,
    };
  };
};
