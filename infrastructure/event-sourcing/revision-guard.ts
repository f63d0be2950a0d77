import type { RecordedEvent } from '../event-store/event-store.ts';

/**
 * The guard every read model's fold applies: an event at or below the view's revision was applied already
 * (false: a replay changes nothing); one beyond the next revision means the log has a gap (throws).
 */
export const isNextRevision = (appliedRevision: number | undefined, event: RecordedEvent): boolean => {
  const applied = appliedRevision ?? -1;
  if (event.revision <= applied) return false;
  if (event.revision !== applied + 1) {
    throw new Error(
      `${event.streamId}: event at revision ${event.revision} follows revision ${applied}; the log has a gap`,
    );
  }
  return true;
};
