/**
 * Lets waiters sleep until notified, a timeout passes, or their signal aborts, whichever comes first.
 * A waiter passes the count of notifications it had seen when it last looked: if one came since, it does
 * not sleep at all, so a notification between looking and waiting is never lost.
 */
export const createWakeup = () => {
  let waiters = new Set<() => void>();
  let notifications = 0;
  return {
    /** How many notifications so far: read it before looking for work. */
    seen(): number {
      return notifications;
    },
    notify(): void {
      notifications++;
      const woken = waiters;
      waiters = new Set();
      for (const wake of woken) wake();
    },
    wait(timeoutMs: number, signal: AbortSignal | undefined, seen: number): Promise<void> {
      return new Promise((resolve) => {
        if (signal?.aborted || seen !== notifications) return resolve();
        const wake = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', wake);
          waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, timeoutMs);
        signal?.addEventListener('abort', wake, { once: true });
        waiters.add(wake);
      });
    },
  };
};
