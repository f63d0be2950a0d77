import type { EventStore, GlobalPosition, RecordedEvent } from '../event-store/event-store.ts';
import { inBatches } from '../event-store/in-batches.ts';

/** Waits ms, or less when the signal aborts: stopping never waits out a pause. */
export const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

export type FollowLogOptions = {
  eventStore: EventStore;
  /** Where to follow from (exclusive; the start while null), asked again at every attempt. */
  from: () => GlobalPosition | null;
  /** Handles one batch; the next is read once it resolved. A rejection ends the attempt. */
  onBatch: (batch: RecordedEvent[]) => Promise<void>;
  /** Told why an attempt failed, before the pause and the next attempt. */
  onFailure: (error: unknown) => void;
  /** Ends the following: the batch in hand is finished, no pause is waited out. */
  signal: AbortSignal;
  batchSize: number;
  /** How long to wait before following the log again after a failed attempt. */
  retryDelayMs: number;
  /**
   * After a batch of several events (appends streaming in), the next batch waits this many ms: events
   * gather into larger batches at the price of that much visibility delay. A batch of one event (a quiet
   * log) holds nothing back, nor does a full one (a backlog).
   */
  minBatchIntervalMs: number;
};

/**
 * The kernel's one way of following the log, for a projection runner and a projection group alike: subscribe
 * after `from()`, hand each batch of what is available to `onBatch`, and after a failure follow again from
 * `from()` (which the caller moves only for batches it finished). Resolves once the signal aborted.
 */
export const followLog = async ({
  eventStore,
  from,
  onBatch,
  onFailure,
  signal,
  batchSize,
  retryDelayMs,
  minBatchIntervalMs,
}: FollowLogOptions): Promise<void> => {
  const follow = async () => {
    const after = from();
    // Ends this attempt's subscription however the attempt ends: stopped, or failed and about to retry.
    const attempt = new AbortController();
    const subscription = eventStore.subscribeToAll({
      ...(after === null ? {} : { after }),
      signal: AbortSignal.any([signal, attempt.signal]),
    });
    try {
      for await (const batch of inBatches(subscription, batchSize)) {
        await onBatch(batch);
        // Several events in a batch mean appends are streaming in: let the next ones gather. A lone event
        // (a quiet log) does not hold back the next one, nor does a backlog, read in full batches.
        if (minBatchIntervalMs > 0 && batch.length > 1 && batch.length < batchSize) {
          await pause(minBatchIntervalMs, signal);
        }
      }
    } finally {
      attempt.abort();
    }
  };

  while (!signal.aborted) {
    try {
      await follow();
    } catch (error) {
      onFailure(error);
      await pause(retryDelayMs, signal);
    }
  }
};
