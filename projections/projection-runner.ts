import type { Logger } from 'pino';
import type { EventStore, RecordedEvent } from '../infrastructure/event-store/event-store.ts';
import { inBatches } from '../infrastructure/event-store/in-batches.ts';
import type { CheckpointStore } from './checkpoints.ts';
import { createPositionWaiters, type ProjectionProgress } from './projection-progress.ts';

export type ProjectionRunnerOptions = {
  /** The checkpoint's name. */
  name: string;
  eventStore: EventStore;
  checkpoints: CheckpointStore;
  /** Applies a batch idempotently: applying events already applied changes nothing. */
  apply: (events: readonly RecordedEvent[]) => Promise<void>;
  logger: Logger;
  batchSize?: number;
  /** How long to wait before following the log again after a failed batch. */
  retryDelayMs?: number;
  /**
   * At most one batch per this many ms: under a stream of appends, events gather into larger batches
   * (fewer read-model transactions) at the price of that much visibility delay; after a quiet spell, the
   * next event is applied at once.
   */
  minBatchIntervalMs?: number;
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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const startProjectionRunner = async ({
  name,
  eventStore,
  checkpoints,
  apply,
  logger,
  batchSize = 1000,
  retryDelayMs = 1000,
  minBatchIntervalMs = 0,
}: ProjectionRunnerOptions): Promise<ProjectionRunner> => {
  const stopping = new AbortController();
  let position = (await checkpoints.load(name)) ?? null;
  const waiters = createPositionWaiters(() => position);
  const log = logger.child({ projection: name });

  const follow = async () => {
    const after = position ?? undefined;
    // Ends this attempt's subscription however the attempt ends: stopped, or failed and about to retry.
    const attempt = new AbortController();
    const subscription = eventStore.subscribeToAll({
      ...(after === undefined ? {} : { after }),
      signal: AbortSignal.any([stopping.signal, attempt.signal]),
    });
    try {
      for await (const batch of inBatches(subscription, batchSize)) {
        await apply(batch);
        const last = batch.at(-1)!.position;
        await checkpoints.save(name, last);
        position = last;
        waiters.advanced();
        // Let the next events gather (the first after a quiet spell was applied at once); a backlog, read
        // in full batches, is not held back.
        if (minBatchIntervalMs > 0 && batch.length < batchSize && !stopping.signal.aborted) {
          await sleep(minBatchIntervalMs);
        }
      }
    } finally {
      attempt.abort();
    }
  };

  const running = (async () => {
    while (!stopping.signal.aborted) {
      try {
        await follow();
      } catch (error) {
        log.error({ err: error, position: position?.toString() ?? null }, 'projection failed; retrying');
        await sleep(retryDelayMs);
      }
    }
  })();

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
