/**
 * Groups an async iterable into batches of what is already available: a batch ends when it is full or
 * when the source would have to wait (for I/O, for a new append). So a projection catching up applies
 * large batches, and one following live appends applies each event as soon as it arrives.
 */
export async function* inBatches<T>(source: AsyncIterable<T>, maxSize: number): AsyncGenerator<T[]> {
  const iterator = source[Symbol.asyncIterator]();
  const idle = Symbol('idle');
  let pending: Promise<IteratorResult<T>> | undefined;
  try {
    pending = iterator.next();
    while (true) {
      const first = await pending;
      if (first.done) return;
      const batch = [first.value];
      pending = iterator.next();
      // One macrotask per batch: whatever the source yields before it runs is ready without waiting.
      const sourceWaits = new Promise<typeof idle>((resolve) => setImmediate(resolve, idle));
      while (batch.length < maxSize) {
        const next = await Promise.race([pending, sourceWaits]);
        if (next === idle) break;
        if (next.done) {
          yield batch;
          return;
        }
        batch.push(next.value);
        pending = iterator.next();
      }
      yield batch;
      // A full batch came without the source ever waiting, so the loop may not have turned since: let it
      // (timers, sockets, other followers) before the next one. Without this, a follower catching up on a
      // long log starved the process (no HTTP served, no listen for seconds), and every event it had read
      // stayed reachable from the race above until the loop turned (a first start on 1,000,000 events
      // reached 1.7 GB).
      await sourceWaits;
    }
  } finally {
    // A next() may still be pending (the source waiting for appends): return() queues behind it, so it is
    // not awaited here. Whoever owns the source ends that wait through the source's abort signal.
    pending?.catch(() => undefined);
    void iterator.return?.()?.catch(() => undefined);
  }
}
