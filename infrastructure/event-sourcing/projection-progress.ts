import type { GlobalPosition } from '../event-store/event-store.ts';

/** How far the read models are in the log: what a query with a Consistency-Token waits on. */
export type ProjectionProgress = {
  /** Position of the last event applied; null before any. */
  position(): GlobalPosition | null;
  /** True once the read models reached the position, false when the timeout passed first. */
  waitFor(position: GlobalPosition, timeoutMs: number): Promise<boolean>;
};

/** The waiting half of a progress: resolves waiters whenever the position advances. */
export const createPositionWaiters = (current: () => GlobalPosition | null) => {
  type Waiter = { position: GlobalPosition; resolve: (reached: boolean) => void; timer: NodeJS.Timeout };
  const waiting = new Set<Waiter>();
  const reached = (target: GlobalPosition) => {
    const at = current();
    return at !== null && at >= target;
  };
  return {
    waitFor(position: GlobalPosition, timeoutMs: number): Promise<boolean> {
      if (reached(position)) return Promise.resolve(true);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          position,
          resolve,
          timer: setTimeout(() => {
            waiting.delete(waiter);
            resolve(false);
          }, timeoutMs),
        };
        waiting.add(waiter);
      });
    },
    advanced(): void {
      for (const waiter of waiting) {
        if (!reached(waiter.position)) continue;
        clearTimeout(waiter.timer);
        waiting.delete(waiter);
        waiter.resolve(true);
      }
    },
    cancelAll(): void {
      for (const waiter of waiting) {
        clearTimeout(waiter.timer);
        waiter.resolve(false);
      }
      waiting.clear();
    },
  };
};
