import type { GlobalPosition, RecordedEvent } from './event-store.ts';

export type RecentEvents = ReturnType<typeof createRecentEvents>;

/**
 * The last events a store appended, decoded and frozen, so that the followers of the log in the same process
 * (the projections, the relay) take a new event from memory instead of each querying and decoding it again.
 *
 * It holds one run of the log without holes: every event after `start` up to the run's end, the event at
 * position `start + 1 + i` at index i. Positions are rowids handed out one after another under the write
 * lock, so an appended event whose position does not follow the run's end means another process wrote to
 * the file in between: the run restarts just before that event, and what it holds is always exactly what
 * the file holds at those positions. Past `capacity` events, the oldest are dropped.
 */
export const createRecentEvents = (capacity: number) => {
  let start: GlobalPosition | null = null;
  let kept: RecordedEvent[] = [];

  return {
    /** Adds the events one write transaction appended, in log order, once it committed. */
    appended(events: readonly RecordedEvent[]): void {
      for (const event of events) {
        if (start === null || event.position !== start + BigInt(kept.length) + 1n) {
          start = event.position - 1n;
          kept = [];
        }
        kept.push(deepFreeze(event));
      }
      // Dropping in bulk keeps the trimming cost per event constant.
      if (kept.length >= 2 * capacity) {
        const dropped = kept.length - capacity;
        kept = kept.slice(dropped);
        start = start! + BigInt(dropped);
      }
    },

    /**
     * Up to maxCount events after a position (exclusive), in log order, when that position lies within the
     * run and at least one event follows it there; otherwise undefined, and the caller reads the file.
     */
    after(position: GlobalPosition, maxCount: number): RecordedEvent[] | undefined {
      if (start === null || position < start) return undefined;
      const index = Number(position - start);
      if (index >= kept.length) return undefined;
      return kept.slice(index, index + maxCount);
    },
  };
};

/** Every follower gets the same objects: none of them may change what the others read. */
const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
};
