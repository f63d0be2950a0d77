import { randomUUID } from 'node:crypto';
import type { EventToAppend } from '../../infrastructure/event-store/event-store.ts';

export const uniqueStreamId = (prefix = 'test'): string => `${prefix}-${randomUUID()}`;

export const anEvent = (type = 'SomethingHappened', data: Record<string, unknown> = {}): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: {
    actor: { userId: 'user-1', roles: ['staff'] },
    correlationId: randomUUID(),
    causationId: null,
    occurredAt: '2026-11-21T10:00:00.000Z',
  },
});

export const events = (count: number, type = 'SomethingHappened'): EventToAppend[] =>
  Array.from({ length: count }, (_, index) => anEvent(type, { index }));

/**
 * Subscribes and collects until the predicate holds, failing after a deadline instead of hanging.
 * The subscription is always ended through its abort signal: an async generator's return() cannot
 * interrupt a pending next(), but an abort can.
 */
export const collectUntil = async <T>(
  subscribe: (signal: AbortSignal) => AsyncIterable<T>,
  done: (collected: T[]) => boolean,
  timeoutMs = 10_000,
): Promise<T[]> => {
  const collected: T[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    for await (const item of subscribe(controller.signal)) {
      collected.push(item);
      if (done(collected)) return collected;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  throw new Error(`subscription ended after ${timeoutMs} ms with ${collected.length} items, predicate unmet`);
};
