import { describe, expect, it } from 'vitest';
import { inBatches } from '../../infrastructure/event-store/in-batches.ts';

/** What a log read from SQLite looks like to a follower: every item ready, no wait for I/O. */
async function* ready(count: number) {
  for (let i = 0; i < count; i++) yield i;
}

describe('inBatches', () => {
  it('groups what is ready into full batches, and a last partial one', async () => {
    const sizes: number[] = [];
    for await (const batch of inBatches(ready(2_500), 1_000)) sizes.push(batch.length);
    expect(sizes).toEqual([1_000, 1_000, 500]);
  });

  it('keeps the order of the source', async () => {
    const items: number[] = [];
    for await (const batch of inBatches(ready(3_000), 700)) items.push(...batch);
    expect(items).toEqual(Array.from({ length: 3_000 }, (_, i) => i));
  });

  it('ends a batch where the source has to wait', async () => {
    async function* bursts() {
      yield* [1, 2, 3];
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield* [4, 5];
    }
    const batches: number[][] = [];
    for await (const batch of inBatches(bursts(), 100)) batches.push(batch);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('lets the event loop turn between full batches, so a follower catching up never starves the process', async () => {
    let batchesBeforeTheLoopTurned: number | undefined;
    let batches = 0;
    setImmediate(() => (batchesBeforeTheLoopTurned = batches));
    for await (const _batch of inBatches(ready(50_000), 1_000)) batches++;
    expect(batches).toBe(50);
    expect(batchesBeforeTheLoopTurned).toBeDefined();
    expect(batchesBeforeTheLoopTurned).toBeLessThanOrEqual(2);
  });
});
