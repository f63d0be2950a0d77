import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  noDeliveryStats,
  statsOverAttempts,
  type DeliveryAttempt,
  type DeliveryLog,
} from '../../webhooks/deliveries/delivery-log.ts';

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

    it('gives each subscription of a list its stats over its latest 50 attempts, in one call (issue 44)', async () => {
      expect(statsOverAttempts).toBe(50);
      const [busy, quiet, gone, none] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const minute = (n: number) => `2026-11-21T11:${String(n).padStart(2, '0')}:00.000Z`;
      // 60 attempts: the 10 oldest failed, then 40 delivered and 10 failed, the newest two at one instant.
      const old = Array.from({ length: 10 }, (_, i) => anAttempt(busy, 0, { attemptedAt: minute(i) }));
      const recent = Array.from({ length: 50 }, (_, i) =>
        anAttempt(busy, 0, {
          attemptedAt: minute(Math.min(10 + i, 58)),
          ...(i % 5 === 4 ? {} : { outcome: 'delivered', statusCode: 204 }),
        }),
      );
      // At the same instant the newest is the one with the greater id (a UUIDv7 in the service).
      const [sameInstantA, sameInstantB] = recent.slice(-2);
      const newestAtTie = [sameInstantA!, sameInstantB!].sort((a, b) => (a.id < b.id ? 1 : -1))[0]!;
      await log.recordAll([...recent.slice(25), ...old, ...recent.slice(0, 25)]);
      await log.record(
        anAttempt(quiet, 0, { attemptedAt: minute(1), outcome: 'delivered', statusCode: 200 }),
      );
      await log.record(anAttempt(quiet, 0, { attemptedAt: minute(2), outcome: 'timeout', statusCode: null }));
      await log.record(anAttempt(gone, 0, { attemptedAt: minute(3), outcome: 'gone', statusCode: 410 }));

      const stats = await log.statsOf([busy, quiet, gone, none]);
      expect([...stats.keys()].sort()).toEqual([busy, quiet, gone, none].sort());
      expect(stats.get(busy)).toEqual({
        attempts: 50,
        delivered: 40,
        successRate: 0.8,
        lastOutcome: newestAtTie.outcome,
        lastAttemptAt: minute(58),
      });
      expect(stats.get(quiet)).toEqual({
        attempts: 2,
        delivered: 1,
        successRate: 0.5,
        lastOutcome: 'timeout',
        lastAttemptAt: minute(2),
      });
      expect(stats.get(gone)).toEqual({
        attempts: 1,
        delivered: 0,
        successRate: 0,
        lastOutcome: 'gone',
        lastAttemptAt: minute(3),
      });
      expect(stats.get(none)).toEqual(noDeliveryStats);
      expect(await log.statsOf([])).toEqual(new Map());
      expect((await log.statsOf([quiet])).get(quiet)).toEqual(stats.get(quiet));
    });

    it('keeps the request an attempt sent, its sealed body as given, and one recorded before it was kept without', async () => {
      const subscriptionId = randomUUID();
      const before = anAttempt(subscriptionId, 1);
      const sent = anAttempt(subscriptionId, 2, {
        request: {
          headers: {
            'content-type': 'application/json',
            'webhook-id': 'evt_1',
            'webhook-signature': 'v1,abcdefgh…',
          },
          body: {
            type: 'order.created',
            data: { shippingAddress: { line1: 'pd1.sealed-token', country: 'FR' }, lines: [{ quantity: 2 }] },
          },
        },
      });
      await log.record(before);
      await log.recordAll([sent]);
      const { attempts } = await log.list(subscriptionId, { kind: 'page', offset: 0, limit: 10 });
      expect(attempts).toEqual([sent, before]);
      expect(attempts[1]).not.toHaveProperty('request');
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
