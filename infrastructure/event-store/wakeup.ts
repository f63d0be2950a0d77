/** Lets waiters sleep until notified, a timeout passes, or their signal aborts, whichever comes first. */
export const createWakeup = () => {
  let waiters = new Set<() => void>();
  return {
    notify(): void {
      const woken = waiters;
      waiters = new Set();
      for (const wake of woken) wake();
    },
    wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
      return new Promise((resolve) => {
        if (signal?.aborted) return resolve();
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
