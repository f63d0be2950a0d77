import type { Logger } from 'pino';
import type { EventStore, GlobalPosition, RecordedEvent } from '../event-store/event-store.ts';
import type { CheckpointStore } from './checkpoints.ts';
import { followLog } from './follow-log.ts';
import { createPositionWaiters, type ProjectionProgress } from './projection-progress.ts';

export type ProjectionRunnerOptions = {
  /** The projection's name, in its log lines. */
  name: string;
  /** Where its checkpoint is stored; its name unless told. */
  checkpoint?: string;
  eventStore: EventStore;
  checkpoints: CheckpointStore;
  /** Applies a batch idempotently: applying events already applied changes nothing. */
  apply: (events: readonly RecordedEvent[]) => Promise<void>;
  logger: Logger;
  batchSize?: number;
  /** How long to wait before following the log again after a failed batch. */
  retryDelayMs?: number;
  /**
   * After a batch of several events (appends streaming in), the next batch waits this many ms: events
   * gather into larger batches (fewer read-model transactions) at the price of that much visibility delay.
   * A batch of one event (a quiet log) holds nothing back, nor does a full one (a backlog).
   */
  minBatchIntervalMs?: number;
  /** Told each position the runner reached and saved (a projection group follows its solo members so). */
  onAdvanced?: (position: GlobalPosition) => void;
};

export type ProjectionRunner = ProjectionProgress & {
  /** Finishes the batch in hand, stores the checkpoint, and stops following the log. */
  stop(): Promise<void>;
};

/**
 * Follows the log from the stored checkpoint and applies it batch by batch, storing the checkpoint after
 * each batch. A crash between applying and storing replays that batch, which changes nothing (the read
 * models are idempotent by stream revision): no gaps, no duplicates. A failing batch is logged and retried.
 */
export const startProjectionRunner = async ({
  name,
  checkpoint = name,
  eventStore,
  checkpoints,
  apply,
  logger,
  batchSize = 1000,
  retryDelayMs = 1000,
  minBatchIntervalMs = 0,
  onAdvanced,
}: ProjectionRunnerOptions): Promise<ProjectionRunner> => {
  const stopping = new AbortController();
  let position = (await checkpoints.load(checkpoint)) ?? null;
  const waiters = createPositionWaiters(() => position);
  const log = logger.child({ projection: name });

  const running = followLog({
    eventStore,
    from: () => position,
    signal: stopping.signal,
    batchSize,
    retryDelayMs,
    minBatchIntervalMs,
    async onBatch(batch) {
      await apply(batch);
      const last = batch.at(-1)!.position;
      await checkpoints.save(checkpoint, last);
      position = last;
      waiters.advanced();
      onAdvanced?.(last);
    },
    onFailure: (error) =>
      log.error({ err: error, position: position?.toString() ?? null }, 'projection failed; retrying'),
  });

  log.info({ from: position?.toString() ?? 'start' }, 'projection following the log');
  return {
    position: () => position,
    waitFor: waiters.waitFor,
    async stop() {
      stopping.abort();
      await running;
      waiters.cancelAll();
      log.info({ position: position?.toString() ?? null }, 'projection stopped');
    },
  };
};
