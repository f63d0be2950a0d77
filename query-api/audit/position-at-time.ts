import type { EventStore, GlobalPosition } from '../../infrastructure/event-store/event-store.ts';

/**
 * The position after which the log's events were recorded at or after `time` (epoch ms): a bisection of
 * the positions from 0 to the head, each step one indexed read of a single event, so a span of time costs
 * about 64 reads however long the log. The log orders its events as they were recorded; their recorded
 * times follow that order (to the few milliseconds by which concurrent appends may cross).
 *
 * For an adapter whose every whole number up to its maxPosition is a position to read from (node:sqlite,
 * PostgreSQL).
 */
export const positionBeforeTime = async (
  eventStore: Pick<EventStore, 'readAll' | 'headPosition'>,
  time: number,
): Promise<GlobalPosition> => {
  let low = 0n;
  let high = (await eventStore.headPosition()) ?? 0n;
  const reachedAfter = async (position: GlobalPosition) => {
    const [next] = await eventStore.readAll({ after: position, maxCount: 1 });
    return next === undefined || Date.parse(next.metadata.occurredAt) >= time;
  };
  while (low < high) {
    const middle = (low + high) / 2n;
    if (await reachedAfter(middle)) high = middle;
    else low = middle + 1n;
  }
  return low;
};
