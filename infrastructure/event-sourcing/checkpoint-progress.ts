import type { CheckpointStore } from './checkpoints.ts';
import { createPositionWaiters, type ProjectionProgress } from './projection-progress.ts';

/**
 * The progress of a projection that runs in another process, read from its stored checkpoint: what the
 * query API of the distributed mode waits on for a Consistency-Token. The store is read only while a query
 * waits, every `pollIntervalMs`; a failed read is retried at the next tick (the query's own timeout bounds it).
 */
export const createCheckpointProgress = ({
  checkpoints,
  projection,
  pollIntervalMs,
  onError,
}: {
  checkpoints: CheckpointStore;
  projection: string;
  pollIntervalMs: number;
  onError: (error: unknown) => void;
}): ProjectionProgress & { stop(): void } => {
  let position: bigint | null = null;
  let waiting = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const waiters = createPositionWaiters(() => position);

  const refresh = async () => {
    try {
      const stored = await checkpoints.load(projection);
      if (stored !== undefined && (position === null || stored > position)) {
        position = stored;
        waiters.advanced();
      }
    } catch (error) {
      onError(error);
    }
  };
  const poll = () => {
    timer = undefined;
    if (stopped || waiting === 0) return;
    void refresh().finally(() => {
      if (!stopped && waiting > 0) timer ??= setTimeout(poll, pollIntervalMs);
    });
  };

  return {
    position: () => position,
    async waitFor(target, timeoutMs) {
      if (position !== null && position >= target) return true;
      waiting++;
      try {
        // A fresh read first: the checkpoint may be there already, and the answer should not wait a tick.
        await refresh();
        if (position !== null && position >= target) return true;
        timer ??= setTimeout(poll, pollIntervalMs);
        return await waiters.waitFor(target, timeoutMs);
      } finally {
        waiting--;
      }
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      waiters.cancelAll();
    },
  };
};
