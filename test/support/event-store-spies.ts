import {
  NO_STREAM,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type StreamEvent,
} from '../../infrastructure/event-store/event-store.ts';

export type AppendRequest = { streamId: string; expectedRevision: ExpectedRevision; types: string[] };

/**
 * A real event store, watched: what was read and what appends were asked of it (granted or not), and
 * another writer that may append to the same stream right after a read, before the reader appends (the
 * race the command handler must win by reading and deciding again).
 */
export const watchedEventStore = (store: EventStore) => {
  const reads: string[] = [];
  const appends: AppendRequest[] = [];
  let concurrentWriter: ((streamId: string, read: StreamEvent[]) => Promise<void>) | undefined;
  let failAppends: Error | undefined;

  const watched: EventStore = {
    ...store,
    async readStream(streamId, options) {
      reads.push(streamId);
      const read = await store.readStream(streamId, options);
      await concurrentWriter?.(streamId, read);
      return read;
    },
    async appendToStream(streamId, events, options) {
      appends.push({
        streamId,
        expectedRevision: options.expectedRevision,
        types: events.map((e) => e.type),
      });
      if (failAppends) throw failAppends;
      return store.appendToStream(streamId, events, options);
    },
  };

  return {
    store: watched,
    /** The streams read, one entry per read. */
    reads,
    /** Every append asked, in order, with the revision it expected. */
    appends,
    /**
     * After each of the next `times` reads of `streamId`, another writer appends `events()` at the revision
     * just read: the reader's append, at that revision, then loses.
     */
    anotherWriterAppendsAfterRead(streamId: string, events: () => EventToAppend[], times = 1) {
      let left = times;
      concurrentWriter = async (read, history) => {
        if (read !== streamId || left === 0) return;
        left--;
        const last = history.at(-1);
        await store.appendToStream(streamId, events(), {
          expectedRevision: last === undefined ? NO_STREAM : last.revision,
        });
      };
    },
    /** Every later append fails with this error, as a failing disk would make it. */
    failAppendsWith(error: Error) {
      failAppends = error;
    },
  };
};
