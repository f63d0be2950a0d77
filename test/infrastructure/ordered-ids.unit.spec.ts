import { describe, expect, it } from 'vitest';
import { createOrderedIds } from '../../infrastructure/ordered-ids.ts';

describe('ordered ids', () => {
  it('are UUIDv7 that strictly increase, within one millisecond and when the clock steps back', () => {
    let ms = 1_700_000_000_000;
    const next = createOrderedIds(() => ms);
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      if (i === 5000) ms -= 10;
      ids.push(next());
    }
    expect(
      ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)),
    ).toBe(true);
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
