import type { Logger } from 'pino';
import type { EventStore, GlobalPosition, RecordedEvent } from '../event-store/event-store.ts';
import type { CheckpointStore } from './checkpoints.ts';
import { createPositionWaiters, type ProjectionProgress } from './projection-progress.ts';
import { followLog } from './follow-log.ts';
import { startProjectionRunner, type ProjectionRunner } from './projection-runner.ts';

export type ProjectionGroupMember = {
  /** The member's name, in its log lines. */
  name: string;
  /** Where its position is stored; its name unless told. */
  checkpoint?: string;
  /** Applies a batch idempotently: applying events already applied changes nothing. */
  apply: (events: readonly RecordedEvent[]) => Promise<void>;
  /**
   * It applies a batch once the others have, and their positions are stored; its own position goes with
   * the next batch's checkpoint write (or the one at stop), so the others' write waits for it not. For a
   * member whose applying twice is allowed anyway (the relay: at least once, consumers deduplicate), which
   * a crash may make it do for one batch, and whose output should find the read models up to date.
   */
  savedWithNextBatch?: boolean;
};

export type ProjectionGroupOptions = {
  /** The group's name, in its log lines. */
  name: string;
  members: readonly ProjectionGroupMember[];
  eventStore: EventStore;
  checkpoints: CheckpointStore;
  logger: Logger;
  batchSize?: number;
  retryDelayMs?: number;
  /** As ProjectionRunnerOptions': after a batch of several events, the next one waits this long. */
  minBatchIntervalMs?: number;
};

export type ProjectionGroup = {
  /** Each member's progress, by member name. */
  progress: Record<string, ProjectionProgress>;
  /** Finishes the batch in hand, stores the positions, and stops following the log. */
  stop(): Promise<void>;
};

type MemberState = {
  member: ProjectionGroupMember;
  checkpoint: string;
  /** Its position while it follows with the group; a solo member's is its runner's. */
  position: GlobalPosition | null;
  /** The position last saved for it by the group. */
  saved: GlobalPosition | null;
  /** Set while the member follows the log on its own (behind the group, or after a failed batch). */
  solo?: ProjectionRunner | undefined;
  waiters: ReturnType<typeof createPositionWaiters>;
};

const positionOf = (state: MemberState) => (state.solo ? state.solo.position() : state.position);
/** Whether a member at `position` has applied everything before the group's next batch, which follows `start`. */
const reached = (position: GlobalPosition | null, start: GlobalPosition | null) =>
  start === null || (position !== null && position >= start);

/**
 * Several projections following the log as one: the log is read once, each batch goes to every member
 * (each skips what it applied already), and all the members' positions are saved in ONE checkpoint write
 * per batch, however many members there are. Members apply concurrently; each must be idempotent.
 *
 * A member that is behind the group at start (a read model emptied for a rebuild) or whose batch fails (the
 * bus is down) follows the log on its own runner, with its own checkpoint writes, so that it holds the
 * others back neither while it replays nor while it retries; it rejoins the group at the first batch after
 * it caught up.
 */
export const startProjectionGroup = async ({
  name,
  members,
  eventStore,
  checkpoints,
  logger,
  batchSize = 1000,
  retryDelayMs = 1000,
  minBatchIntervalMs = 0,
}: ProjectionGroupOptions): Promise<ProjectionGroup> => {
  const log = logger.child({ projectionGroup: name });
  const stopping = new AbortController();
  const states: MemberState[] = [];
  for (const member of members) {
    const checkpoint = member.checkpoint ?? member.name;
    const position = (await checkpoints.load(checkpoint)) ?? null;
    const state: MemberState = {
      member,
      checkpoint,
      position,
      saved: position,
      waiters: createPositionWaiters(() => positionOf(state)),
    };
    states.push(state);
  }
  // The group starts where the members furthest along are; the others catch up on their own first.
  let groupPosition = states.reduce<GlobalPosition | null>(
    (furthest, { position }) =>
      position !== null && (furthest === null || position > furthest) ? position : furthest,
    null,
  );

  const goSolo = async (state: MemberState) => {
    const from = state.position;
    state.solo = await startProjectionRunner({
      name: state.member.name,
      checkpoint: state.checkpoint,
      eventStore,
      checkpoints,
      logger,
      batchSize,
      retryDelayMs,
      minBatchIntervalMs,
      apply: state.member.apply,
      onAdvanced: () => state.waiters.advanced(),
    });
    log.info(
      { projection: state.member.name, from: from?.toString() ?? 'start' },
      'projection follows the log on its own until it has caught up with its group',
    );
  };
  const rejoin = async (state: MemberState) => {
    const solo = state.solo!;
    await solo.stop();
    state.position = solo.position();
    state.saved = state.position;
    state.solo = undefined;
    log.info({ projection: state.member.name }, 'projection rejoined its group');
  };

  for (const state of states) {
    if (state.position !== groupPosition) await goSolo(state);
  }

  const applyTo = async (state: MemberState, batch: RecordedEvent[]) => {
    const from = state.position;
    const unseen = from === null ? batch : batch.filter((event) => event.position > from);
    if (unseen.length > 0) await state.member.apply(unseen);
  };
  /** The positions of the group's members that moved since last saved. */
  const unsaved = (members: readonly MemberState[]) =>
    new Map(
      members
        .filter((state) => state.position !== null && state.position !== state.saved)
        .map((state) => [state.checkpoint, state.position!]),
    );
  const markSaved = (members: readonly MemberState[]) => {
    for (const state of members) state.saved = state.position;
  };

  const applyBatch = async (batch: RecordedEvent[]) => {
    const start = groupPosition;
    for (const state of states) {
      if (state.solo && reached(state.solo.position(), start)) await rejoin(state);
    }
    const inGroup = states.filter((state) => !state.solo);
    const now = inGroup.filter((state) => !state.member.savedWithNextBatch);
    const later = inGroup.filter((state) => state.member.savedWithNextBatch);
    const last = batch.at(-1)!.position;
    const nowOutcomes = await Promise.allSettled(now.map((state) => applyTo(state, batch)));
    const done = now.filter((_, index) => nowOutcomes[index]!.status === 'fulfilled');
    for (const state of done) state.position = last;
    // One write: the members done with this batch, and what the others finished before it.
    const saving = [...done, ...later];
    await checkpoints.saveAll(unsaved(saving));
    markSaved(saving);
    for (const state of done) state.waiters.advanced();
    // Then the others (the relay): what they hand on (a webhook) finds the read models and their
    // checkpoint stored already, so nobody downstream waits on them.
    const laterOutcomes = await Promise.allSettled(later.map((state) => applyTo(state, batch)));
    const failed: { state: MemberState; reason: unknown }[] = [];
    for (const [index, outcome] of laterOutcomes.entries()) {
      const state = later[index]!;
      if (outcome.status === 'rejected') failed.push({ state, reason: outcome.reason });
      else {
        state.position = last;
        state.waiters.advanced();
      }
    }
    for (const [index, outcome] of nowOutcomes.entries()) {
      if (outcome.status === 'rejected') failed.push({ state: now[index]!, reason: outcome.reason });
    }
    for (const { state, reason } of failed) {
      log.error(
        { err: reason, projection: state.member.name, position: state.position?.toString() ?? null },
        'projection failed in its group; it retries on its own',
      );
      // Its runner starts from the stored position: store what it finished first.
      if (state.position !== null && state.position !== state.saved) {
        await checkpoints.save(state.checkpoint, state.position);
        state.saved = state.position;
      }
      if (!stopping.signal.aborted) await goSolo(state);
    }
    // Only now: a failed member that could not go solo (its checkpoint store failing too) is still in the
    // group at its own position, and the group reads this batch again rather than leave it behind.
    groupPosition = last;
  };

  const running = followLog({
    eventStore,
    from: () => groupPosition,
    onBatch: applyBatch,
    signal: stopping.signal,
    batchSize,
    retryDelayMs,
    minBatchIntervalMs,
    onFailure: (error) =>
      log.error(
        { err: error, position: groupPosition?.toString() ?? null },
        'projection group failed; retrying',
      ),
  });

  log.info(
    { from: groupPosition?.toString() ?? 'start', members: states.map((s) => s.member.name) },
    'projection group following the log',
  );
  return {
    progress: Object.fromEntries(
      states.map((state) => [
        state.member.name,
        { position: () => positionOf(state), waitFor: state.waiters.waitFor } satisfies ProjectionProgress,
      ]),
    ),
    async stop() {
      stopping.abort();
      // A member's batch in hand may be waiting for another's progress (the relay's for the subscriptions',
      // which cannot advance while their store fails): such waits end now, and that batch fails.
      for (const state of states) state.waiters.cancelAll();
      await running;
      const inGroup = states.filter((state) => !state.solo);
      try {
        await checkpoints.saveAll(unsaved(inGroup));
      } catch (error) {
        log.warn(
          { err: error },
          'could not store the last positions; those batches are applied again at start',
        );
      }
      for (const state of states) {
        await state.solo?.stop();
        state.waiters.cancelAll();
      }
      log.info('projection group stopped');
    },
  };
};
