import type { GlobalPosition, RecordedEvent } from './event-store.ts';

/** An event as the store wrote it: data and metadata as the JSON text stored. */
/** An event as its append wrote it, its position set once its INSERT has run. */
export type StoredEvent = {
  -readonly [K in keyof Omit<RecordedEvent, 'data' | 'metadata'>]: RecordedEvent[K];
} & { data: string; metadata: string };

/**
 * The last events a store appended, so that the followers of the log in the same process (the projections,
 * the relay) take a new event from memory instead of each querying and decoding it again. An event is
 * decoded from its stored text when first read (so it is what a read of the file returns, and an append
 * that no one follows pays nothing), then frozen and handed to every later reader.
 *
 * It holds one run of the log without holes: every event after `start` up to the run's end, the event at
 * position `start + 1 + i` at index i. Positions are rowids handed out one after another under the write
 * lock, so an appended event whose position does not follow the run's end means another process wrote to
 * the file in between: the run restarts just before that event, and what it holds is always exactly what
 * the file holds at those positions. Past `capacity` events, the oldest are dropped.
 */
export const createRecentEvents = (capacity: number) => {
  let start: GlobalPosition | null = null;
  let kept: (StoredEvent | RecordedEvent)[] = [];

  return {
    /** Adds the events one write transaction appended, in log order, once it committed. */
    appended(events: readonly StoredEvent[]): void {
      for (const event of events) {
        if (start === null || event.position !== start + BigInt(kept.length) + 1n) {
          start = event.position - 1n;
          kept = [];
        }
        kept.push(event);
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
      const end = Math.min(kept.length, index + maxCount);
      const events: RecordedEvent[] = new Array(end - index);
      let metadataText: string | undefined;
      let metadata: RecordedEvent['metadata'] | undefined;
      for (let at = index; at < end; at++) {
        let event = kept[at]!;
        if (typeof event.data === 'string') {
          const stored = event as StoredEvent;
          // The events of one append share one metadata text: parse it once.
          if (stored.metadata !== metadataText) {
            metadataText = stored.metadata;
            metadata = JSON.parse(metadataText) as RecordedEvent['metadata'];
          }
          event = deepFreeze({
            ...stored,
            data: JSON.parse(stored.data) as Record<string, unknown>,
            metadata: metadata!,
          });
          kept[at] = event;
        }
        events[at - index] = event as RecordedEvent;
      }
      return events;
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
