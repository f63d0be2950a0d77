/**
 * What a process knows of values kept in a store, by key: each read at most once per `maxAgeMs` while
 * it is fresh, concurrent callers sharing one read, at most `maxEntries` kept (the oldest reads go first),
 * and a key forgotten (its read under way included) as soon as this process changes it.
 */
export type SharedReads<Value> = {
  /** The value as last read, while fresh; otherwise a read, shared with whoever asks meanwhile. */
  get(key: string): Value | Promise<Value>;
  /** A read begun now, never one already under way (whose answer may predate what the caller knows). */
  fresh(key: string): Promise<Value>;
  forget(key: string): void;
};

export const createSharedReads = <Value>({
  read,
  maxAgeMs,
  now = () => performance.now(),
  maxEntries,
}: {
  read: (key: string) => Promise<Value>;
  maxAgeMs: number;
  /** A monotonic clock in ms. */
  now?: () => number;
  maxEntries: number;
}): SharedReads<Value> => {
  const known = new Map<string, { value: Value; readAt: number }>();
  const reading = new Map<string, Promise<Value>>();

  const start = (key: string): Promise<Value> => {
    const readAt = now();
    const promise = read(key)
      .then((value) => {
        // A change made by this process while the read was under way leaves the entry out.
        if (reading.get(key) === promise) {
          known.delete(key);
          if (known.size >= maxEntries) known.delete(known.keys().next().value!);
          known.set(key, { value, readAt });
        }
        return value;
      })
      .finally(() => {
        if (reading.get(key) === promise) reading.delete(key);
      });
    reading.set(key, promise);
    return promise;
  };

  return {
    get(key) {
      const entry = known.get(key);
      if (entry && now() - entry.readAt < maxAgeMs) return entry.value;
      return reading.get(key) ?? start(key);
    },
    fresh: start,
    forget(key) {
      known.delete(key);
      reading.delete(key);
    },
  };
};
