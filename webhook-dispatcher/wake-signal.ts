/**
 * What the worker's loop sleeps on between looks in the store: woken by whatever may have made something
 * due there (and by the stop), it looks at once; a wake while it looks is kept for the next turn.
 */
export const createWakeSignal = () => {
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let woken = true;

  const wake = () => {
    woken = true;
    wakeUp?.();
  };

  return {
    wake,
    stop: () => {
      stopped = true;
      wake();
    },
    isStopped: () => stopped,
    /** Whether anything woke the loop since it last asked. */
    takeWoken: () => {
      const wasWoken = woken;
      woken = false;
      return wasWoken;
    },
    async sleepUnlessWoken(delay: number) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, delay));
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
        if (woken || stopped) wakeUp();
      });
      wakeUp = null;
    },
  };
};
