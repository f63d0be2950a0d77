import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryAttempt, DeliveryLog } from '../../webhooks/deliveries/delivery-log.ts';

const anAttempt = (subscriptionId: string, second: number, overrides: Partial<DeliveryAttempt> = {}) =>
  ({
    id: randomUUID(),
    deliveryId: randomUUID(),
    subscriptionId,
    eventId: randomUUID(),
    eventType: 'order.created',
    attempt: 1,
    attemptedAt: `2026-11-21T10:00:${String(second).padStart(2, '0')}.000Z`,
    durationMs: 12,
    statusCode: 500,
    outcome: 'failed',
    error: null,
    responseBody: 'x'.repeat(10),
    responseBodyTruncated: false,
    nextAttemptAt: '2026-11-21T10:05:00.000Z',
    deadLettered: false,
    ...overrides,
  }) satisfies DeliveryAttempt;

/** What every adapter of the DeliveryLog port promises. */
export const deliveryLogContract = (adapterName: string, createLog: () => Promise<DeliveryLog>) => {
  describe(`DeliveryLog contract: ${adapterName}`, () => {
    let log: DeliveryLog;
    beforeAll(async () => {
      log = await createLog();
    });

    it('records several attempts at once, and one recorded before only once', async () => {
      const subscriptionId = randomUUID();
      const [first, second, third] = [1, 2, 3].map((n) => anAttempt(subscriptionId, n));
      await log.recordAll([first!, second!]);
      await log.recordAll([second!, third!]);
      await log.recordAll([]);
      expect(await log.list(subscriptionId, { kind: 'page', offset: 0, limit: 10 })).toEqual({
        attempts: [third, second, first],
        hasMore: false,
        total: 3,
      });
    });

    it('keeps each attempt as recorded, newest first, per subscription', async () => {
      const subscriptionId = randomUUID();
      const first = anAttempt(subscriptionId, 1);
      const second = anAttempt(subscriptionId, 2, {
        attempt: 2,
        statusCode: 200,
        outcome: 'delivered',
        nextAttemptAt: null,
        responseBody: 'é'.repeat(3),
        responseBodyTruncated: true,
      });
      await log.record(first);
      await log.record(second);
      await log.record(anAttempt(randomUUID(), 3));
      expect(await log.list(subscriptionId, { kind: 'cursor', limit: 10 })).toEqual({
        attempts: [second, first],
        hasMore: false,
      });
      expect(await log.list(randomUUID(), { kind: 'page', offset: 0, limit: 10 })).toEqual({
        attempts: [],
        hasMore: false,
        total: 0,
      });
    });

    it('pages by offset with a total, and by cursor both ways, stable under new attempts', async () => {
      const subscriptionId = randomUUID();
      const attempts = Array.from({ length: 5 }, (_, i) => anAttempt(subscriptionId, 10 + i));
      for (const attempt of attempts) await log.record(attempt);
      const newestFirst = [...attempts].reverse();

      const page2 = await log.list(subscriptionId, { kind: 'page', offset: 2, limit: 2 });
      expect(page2).toEqual({ attempts: newestFirst.slice(2, 4), hasMore: true, total: 5 });

      const first = await log.list(subscriptionId, { kind: 'cursor', limit: 2 });
      expect(first).toEqual({ attempts: newestFirst.slice(0, 2), hasMore: true });
      await log.record(anAttempt(subscriptionId, 30));
      const next = await log.list(subscriptionId, { kind: 'cursor', limit: 2, after: newestFirst[1]! });
      expect(next).toEqual({ attempts: newestFirst.slice(2, 4), hasMore: true });
      const last = await log.list(subscriptionId, { kind: 'cursor', limit: 2, after: newestFirst[3]! });
      expect(last).toEqual({ attempts: newestFirst.slice(4), hasMore: false });
      const back = await log.list(subscriptionId, { kind: 'cursor', limit: 2, before: newestFirst[2]! });
      expect(back).toEqual({ attempts: newestFirst.slice(0, 2), hasMore: true });
    });

    it('lists only the attempts of an outcome and of an event type, when asked, in every kind of page', async () => {
      const subscriptionId = randomUUID();
      const failed = anAttempt(subscriptionId, 1);
      const delivered = anAttempt(subscriptionId, 2, { outcome: 'delivered', statusCode: 204 });
      const shipped = anAttempt(subscriptionId, 3, { eventType: 'order.shipped' });
      const shippedLater = anAttempt(subscriptionId, 4, { eventType: 'order.shipped' });
      await log.recordAll([failed, delivered, shipped, shippedLater]);

      expect(
        await log.list(subscriptionId, { kind: 'page', offset: 0, limit: 10, outcome: 'failed' }),
      ).toEqual({ attempts: [shippedLater, shipped, failed], hasMore: false, total: 3 });
      expect(
        await log.list(subscriptionId, { kind: 'page', offset: 0, limit: 10, eventType: 'order.created' }),
      ).toEqual({ attempts: [delivered, failed], hasMore: false, total: 2 });
      const both = { outcome: 'failed', eventType: 'order.created' } as const;
      expect(await log.list(subscriptionId, { kind: 'cursor', limit: 10, ...both })).toEqual({
        attempts: [failed],
        hasMore: false,
      });
      const shippedOnly = { kind: 'cursor', limit: 1, eventType: 'order.shipped' } as const;
      expect(await log.list(subscriptionId, shippedOnly)).toEqual({
        attempts: [shippedLater],
        hasMore: true,
      });
      expect(await log.list(subscriptionId, { ...shippedOnly, after: shippedLater })).toEqual({
        attempts: [shipped],
        hasMore: false,
      });
      expect(await log.list(subscriptionId, { ...shippedOnly, before: shipped })).toEqual({
        attempts: [shippedLater],
        hasMore: false,
      });
    });

    it('ignores an attempt recorded twice', async () => {
      const subscriptionId = randomUUID();
      const attempt = anAttempt(subscriptionId, 1);
      await log.record(attempt);
      await log.record(attempt);
      expect((await log.list(subscriptionId, { kind: 'page', offset: 0, limit: 10 })).total).toBe(1);
    });
  });
};
