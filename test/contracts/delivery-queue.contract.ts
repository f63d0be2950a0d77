import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  deliveryIdFor,
  nextAttemptNumber,
  type DeliveryQueue,
  type NewDelivery,
} from '../../webhooks/deliveries/delivery-queue.ts';

const t0 = Date.parse('2026-11-21T10:00:00.000Z');

const aDelivery = (
  subscriptionId: string,
  overrides: Partial<NewDelivery> & { orderingKey?: string; sequence?: number } = {},
): NewDelivery => {
  const eventId = overrides.eventId ?? randomUUID();
  return {
    id: deliveryIdFor(subscriptionId, eventId),
    subscriptionId,
    eventId,
    eventType: 'order.status_changed',
    orderingKey: randomUUID(),
    sequence: 0,
    body: JSON.stringify({ type: 'order.status_changed', data: { eventId } }),
    nextAttemptAt: t0,
    createdAt: t0,
    ...overrides,
  };
};

/** What every adapter of the DeliveryQueue port (the dispatcher's retry state) promises. */
export const deliveryQueueContract = (adapterName: string, createQueue: () => Promise<DeliveryQueue>) => {
  describe(`DeliveryQueue contract: ${adapterName}`, () => {
    let queue: DeliveryQueue;
    beforeAll(async () => {
      queue = await createQueue();
      // Other suites' leftovers must not be held by a lease from an earlier run.
      await queue.releaseLeases();
    });
    const dueFor = async (subscriptionId: string, now = t0) =>
      (await queue.due({ now, limit: 1000 })).filter((d) => d.subscriptionId === subscriptionId);

    it('keeps a delivery once however often the same event is accepted', async () => {
      const subscriptionId = randomUUID();
      const delivery = aDelivery(subscriptionId);
      await queue.enqueue([delivery]);
      await queue.enqueue([{ ...delivery, body: 'changed' }]);
      expect(await queue.get(delivery.id)).toEqual({
        ...delivery,
        status: 'pending',
        attempts: 0,
        lease: null,
      });
      expect(await dueFor(subscriptionId)).toHaveLength(1);
      expect(await queue.get(randomUUID())).toBeNull();
    });

    it('keeps a settled delivery settled when its event is accepted again', async () => {
      const delivery = aDelivery(randomUUID());
      await queue.enqueue([delivery]);
      await queue.claim(delivery.id, { owner: 'a', now: t0, leaseUntil: t0 + 30_000 });
      await queue.settle(delivery.id, 'a', { status: 'delivered' });
      await queue.enqueue([delivery]);
      expect(await queue.get(delivery.id)).toMatchObject({ status: 'delivered', attempts: 1, lease: null });
      expect(await dueFor(delivery.subscriptionId)).toEqual([]);
    });

    it('offers only the first pending delivery of each (subscription, key) line, earliest due first', async () => {
      const subscriptionId = randomUUID();
      const orderId = randomUUID();
      const second = aDelivery(subscriptionId, {
        orderingKey: orderId,
        sequence: 2,
        nextAttemptAt: t0 - 5000,
      });
      const first = aDelivery(subscriptionId, { orderingKey: orderId, sequence: 1, nextAttemptAt: t0 });
      const other = aDelivery(subscriptionId, { sequence: 7, nextAttemptAt: t0 - 1000 });
      const notYet = aDelivery(subscriptionId, { nextAttemptAt: t0 + 1000 });
      await queue.enqueue([second, first, other, notYet]);
      expect((await dueFor(subscriptionId)).map((d) => d.id)).toEqual([other.id, first.id]);
      // Another subscription's line for the same order is its own.
      const elsewhere = aDelivery(randomUUID(), { orderingKey: orderId, sequence: 2 });
      await queue.enqueue([elsewhere]);
      expect((await dueFor(elsewhere.subscriptionId)).map((d) => d.id)).toEqual([elsewhere.id]);
      expect(await queue.nextDueAt()).toBeLessThanOrEqual(t0 - 5000);
    });

    it('holds a line while its head is leased or waiting to be retried, and frees it once delivered', async () => {
      const subscriptionId = randomUUID();
      const orderId = randomUUID();
      const first = aDelivery(subscriptionId, { orderingKey: orderId, sequence: 0 });
      const second = aDelivery(subscriptionId, { orderingKey: orderId, sequence: 1 });
      await queue.enqueue([first, second]);
      expect(await queue.claim(first.id, { owner: 'a', now: t0, leaseUntil: t0 + 30_000 })).toBe(true);
      expect(await dueFor(subscriptionId)).toEqual([]);
      expect(await queue.settle(first.id, 'a', { status: 'pending', nextAttemptAt: t0 + 5000 })).toBe(true);
      expect(await queue.get(first.id)).toMatchObject({ status: 'pending', attempts: 1, lease: null });
      expect(await dueFor(subscriptionId)).toEqual([]);
      expect((await dueFor(subscriptionId, t0 + 5000)).map((d) => d.id)).toEqual([first.id]);
      await queue.claim(first.id, { owner: 'a', now: t0 + 5000, leaseUntil: t0 + 35_000 });
      await queue.settle(first.id, 'a', { status: 'delivered' });
      expect(await queue.get(first.id)).toMatchObject({ status: 'delivered', attempts: 2 });
      expect((await dueFor(subscriptionId, t0 + 5000)).map((d) => d.id)).toEqual([second.id]);
    });

    it('lets a dead-lettered or cancelled head stop holding its line', async () => {
      const subscriptionId = randomUUID();
      const orderId = randomUUID();
      const [first, second, third] = [0, 1, 2].map((sequence) =>
        aDelivery(subscriptionId, { orderingKey: orderId, sequence }),
      );
      await queue.enqueue([first!, second!, third!]);
      await queue.claim(first!.id, { owner: 'a', now: t0, leaseUntil: t0 + 1 });
      await queue.settle(first!.id, 'a', { status: 'dead' });
      await queue.claim(second!.id, { owner: 'a', now: t0, leaseUntil: t0 + 1 });
      await queue.settle(second!.id, 'a', { status: 'cancelled' });
      expect((await dueFor(subscriptionId)).map((d) => d.id)).toEqual([third!.id]);
    });

    it("lists a subscription's pending deliveries oldest first, each naming the head of its line it waits behind", async () => {
      const subscriptionId = randomUUID();
      const [orderA, orderB] = [randomUUID(), randomUUID()];
      const at = (seconds: number) => t0 + seconds * 1000;
      const headA = aDelivery(subscriptionId, { orderingKey: orderA, sequence: 0, createdAt: at(1) });
      const behindA1 = aDelivery(subscriptionId, { orderingKey: orderA, sequence: 1, createdAt: at(2) });
      const behindA2 = aDelivery(subscriptionId, { orderingKey: orderA, sequence: 2, createdAt: at(4) });
      const onlyB = aDelivery(subscriptionId, { orderingKey: orderB, sequence: 5, createdAt: at(3) });
      const settled = aDelivery(subscriptionId, { createdAt: at(0) });
      const elsewhere = aDelivery(randomUUID(), { orderingKey: orderA, sequence: 0, createdAt: at(0) });
      await queue.enqueue([behindA2, onlyB, settled, headA, elsewhere, behindA1]);
      await queue.claim(settled.id, { owner: 'a', now: t0, leaseUntil: t0 + 30_000 });
      await queue.settle(settled.id, 'a', { status: 'delivered' });
      // The head failed once and waits for its retry; those behind it wait for it.
      await queue.claim(headA.id, { owner: 'a', now: at(1), leaseUntil: at(31) });
      await queue.settle(headA.id, 'a', { status: 'pending', nextAttemptAt: at(60) });

      const { deliveries, more } = await queue.pendingOf(subscriptionId, 10);
      expect(more).toBe(false);
      expect(deliveries).toEqual([
        {
          id: headA.id,
          eventId: headA.eventId,
          eventType: headA.eventType,
          orderingKey: orderA,
          sequence: 0,
          nextAttemptAt: at(60),
          createdAt: at(1),
          attemptsMade: 1,
          waitingBehind: null,
        },
        expect.objectContaining({ id: behindA1.id, attemptsMade: 0, waitingBehind: headA.id }),
        expect.objectContaining({ id: onlyB.id, sequence: 5, waitingBehind: null }),
        expect.objectContaining({ id: behindA2.id, waitingBehind: headA.id }),
      ]);
      const firstTwo = await queue.pendingOf(subscriptionId, 2);
      expect(firstTwo.deliveries.map((d) => d.id)).toEqual([headA.id, behindA1.id]);
      expect(firstTwo.more).toBe(true);

      // Once the head is dead-lettered, the next of its line heads it; an admin's retry counts on.
      await queue.claim(headA.id, { owner: 'a', now: at(60), leaseUntil: at(90) });
      await queue.settle(headA.id, 'a', { status: 'dead' });
      const after = (await queue.pendingOf(subscriptionId, 10)).deliveries;
      expect(after.map((d) => [d.id, d.waitingBehind])).toEqual([
        [behindA1.id, null],
        [onlyB.id, null],
        [behindA2.id, behindA1.id],
      ]);
      await queue.redeliver(headA.id, at(100));
      const retried = (await queue.pendingOf(subscriptionId, 10)).deliveries;
      expect(retried[0]).toMatchObject({ id: headA.id, attemptsMade: 2, waitingBehind: null });
      expect(retried.find((d) => d.id === behindA1.id)?.waitingBehind).toBe(headA.id);
      expect(await queue.pendingOf(randomUUID(), 10)).toEqual({ deliveries: [], more: false });
    });

    it('gives a delivery to exactly one of many concurrent claimants', async () => {
      const delivery = aDelivery(randomUUID());
      await queue.enqueue([delivery]);
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          queue.claim(delivery.id, { owner: `instance-${i}`, now: t0, leaseUntil: t0 + 30_000 }),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('lets another instance take a delivery whose lease ran out; the first can no longer settle it', async () => {
      const delivery = aDelivery(randomUUID());
      await queue.enqueue([delivery]);
      expect(await queue.claim(delivery.id, { owner: 'a', now: t0, leaseUntil: t0 + 1000 })).toBe(true);
      expect(await queue.claim(delivery.id, { owner: 'b', now: t0 + 999, leaseUntil: t0 + 5000 })).toBe(
        false,
      );
      expect((await dueFor(delivery.subscriptionId, t0 + 1000)).map((d) => d.id)).toEqual([delivery.id]);
      expect(await queue.claim(delivery.id, { owner: 'b', now: t0 + 1000, leaseUntil: t0 + 5000 })).toBe(
        true,
      );
      expect(await queue.settle(delivery.id, 'a', { status: 'delivered' })).toBe(false);
      expect(await queue.settle(delivery.id, 'b', { status: 'delivered' })).toBe(true);
      expect(await queue.get(delivery.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    });

    it('does not claim what is not due or not pending', async () => {
      const later = aDelivery(randomUUID(), { nextAttemptAt: t0 + 10_000 });
      await queue.enqueue([later]);
      expect(await queue.claim(later.id, { owner: 'a', now: t0, leaseUntil: t0 + 1 })).toBe(false);
      const done = aDelivery(randomUUID());
      await queue.enqueue([done]);
      await queue.claim(done.id, { owner: 'a', now: t0, leaseUntil: t0 + 1 });
      await queue.settle(done.id, 'a', { status: 'delivered' });
      expect(await queue.claim(done.id, { owner: 'a', now: t0 + 5, leaseUntil: t0 + 10 })).toBe(false);
    });

    it('delivers again on request, due at once with a fresh count of attempts', async () => {
      const delivery = aDelivery(randomUUID());
      await queue.enqueue([delivery]);
      await queue.claim(delivery.id, { owner: 'a', now: t0, leaseUntil: t0 + 1 });
      await queue.settle(delivery.id, 'a', { status: 'dead' });
      expect(await queue.redeliver(delivery.id, t0 + 60_000)).toBe(true);
      expect(await queue.get(delivery.id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        nextAttemptAt: t0 + 60_000,
        lease: null,
      });
      expect(await queue.redeliver(randomUUID(), t0)).toBe(false);
    });

    it("names a subscription's dead-lettered deliveries accepted since a time, oldest first, up to a limit", async () => {
      const subscriptionId = randomUUID();
      const [before, first, delivered, second, third] = [-1, 0, 1, 2, 3].map((second) =>
        aDelivery(subscriptionId, { createdAt: t0 + second * 1000 }),
      );
      const elsewhere = aDelivery(randomUUID());
      await queue.enqueue([before!, first!, delivered!, second!, third!, elsewhere]);
      for (const { id } of [before!, first!, delivered!, second!, third!, elsewhere]) {
        await queue.claim(id, { owner: 'a', now: t0, leaseUntil: t0 + 1 });
        await queue.settle(id, 'a', { status: id === delivered!.id ? 'delivered' : 'dead' });
      }
      expect(await queue.deadSince(subscriptionId, t0, 10)).toEqual([first!.id, second!.id, third!.id]);
      expect(await queue.deadSince(subscriptionId, t0, 2)).toEqual([first!.id, second!.id]);
      // Delivered again: pending, no longer dead, so a second recovery leaves it alone.
      await queue.redeliver(first!.id, t0 + 5000);
      expect(await queue.deadSince(subscriptionId, t0, 10)).toEqual([second!.id, third!.id]);
      expect(await queue.deadSince(randomUUID(), 0, 10)).toEqual([]);
    });

    it('counts the attempts before a retry apart, so the log numbers attempts on across retries', async () => {
      const delivery = aDelivery(randomUUID());
      await queue.enqueue([delivery]);
      for (const [index, status] of (['pending', 'dead'] as const).entries()) {
        const now = t0 + index;
        await queue.claim(delivery.id, { owner: 'a', now, leaseUntil: now + 1 });
        await queue.settle(
          delivery.id,
          'a',
          status === 'pending' ? { status, nextAttemptAt: now + 1 } : { status },
        );
      }
      expect(await queue.redeliver(delivery.id, t0 + 10)).toBe(true);
      const retried = (await queue.get(delivery.id))!;
      expect(retried).toMatchObject({ attempts: 0, earlierAttempts: 2 });
      expect(nextAttemptNumber(retried)).toBe(3);
      // Retried again while still pending: the earlier attempts add up.
      await queue.claim(delivery.id, { owner: 'a', now: t0 + 10, leaseUntil: t0 + 11 });
      await queue.settle(delivery.id, 'a', { status: 'pending', nextAttemptAt: t0 + 20 });
      expect(await queue.redeliver(delivery.id, t0 + 12)).toBe(true);
      expect(nextAttemptNumber((await queue.get(delivery.id))!)).toBe(4);
    });

    it('leaves out the subscriptions asked to be left out', async () => {
      const [a, b] = [aDelivery(randomUUID()), aDelivery(randomUUID())];
      await queue.enqueue([a, b]);
      const ids = (await queue.due({ now: t0, limit: 1000, excludeSubscriptions: [a.subscriptionId] })).map(
        (d) => d.id,
      );
      expect(ids).toContain(b.id);
      expect(ids).not.toContain(a.id);
    });

    it('holds what it adds under the lease it is given, and says which ones it added', async () => {
      const subscriptionId = randomUUID();
      const orderId = randomUUID();
      const [first, second] = [0, 1].map((sequence) =>
        aDelivery(subscriptionId, { orderingKey: orderId, sequence }),
      );
      const lease = { owner: 'accepting', leaseUntil: t0 + 30_000 };
      expect(await queue.enqueue([first!, second!], lease)).toEqual([first!.id, second!.id]);
      expect(await queue.get(first!.id)).toMatchObject({
        status: 'pending',
        lease: { owner: 'accepting', until: t0 + 30_000 },
      });
      expect(await dueFor(subscriptionId)).toEqual([]);
      expect(await queue.claim(first!.id, { owner: 'other', now: t0, leaseUntil: t0 + 1 })).toBe(false);
      // Accepted again, by anyone: nothing added, nothing taken.
      expect(await queue.enqueue([first!], { owner: 'other', leaseUntil: t0 + 60_000 })).toEqual([]);
      expect(await queue.settle(first!.id, 'accepting', { status: 'delivered' })).toBe(true);
      expect(await queue.settle(second!.id, 'accepting', { status: 'delivered' })).toBe(true);
      expect(await queue.enqueue([first!, second!], lease)).toEqual([]);
      expect(await queue.get(second!.id)).toMatchObject({ status: 'delivered', attempts: 1, lease: null });
      expect(await queue.enqueue([aDelivery(subscriptionId)])).toHaveLength(1);
    });

    it("ends only the owner's own leases on the deliveries named", async () => {
      const [mine, theirs, kept] = [
        aDelivery(randomUUID()),
        aDelivery(randomUUID()),
        aDelivery(randomUUID()),
      ];
      await queue.enqueue([mine, kept], { owner: 'a', leaseUntil: t0 + 30_000 });
      await queue.enqueue([theirs], { owner: 'b', leaseUntil: t0 + 30_000 });
      await queue.release([mine.id, theirs.id], 'a');
      expect(await queue.get(mine.id)).toMatchObject({ lease: null });
      expect(await queue.get(theirs.id)).toMatchObject({ lease: { owner: 'b' } });
      expect(await queue.get(kept.id)).toMatchObject({ lease: { owner: 'a' } });
      expect((await dueFor(mine.subscriptionId)).map((d) => d.id)).toEqual([mine.id]);
    });

    it('names each line that has a pending delivery, and no settled one', async () => {
      const subscriptionId = randomUUID();
      const [waiting, leased, done] = [
        aDelivery(subscriptionId),
        aDelivery(subscriptionId),
        aDelivery(subscriptionId),
      ];
      await queue.enqueue([
        waiting,
        { ...leased, sequence: 1 },
        { ...leased, id: randomUUID(), sequence: 2 },
      ]);
      await queue.enqueue([done], { owner: 'a', leaseUntil: t0 + 30_000 });
      await queue.settle(done.id, 'a', { status: 'delivered' });
      const lines = (await queue.pendingLines()).filter((line) => line.subscriptionId === subscriptionId);
      expect(lines.map((line) => line.orderingKey).sort()).toEqual(
        [waiting.orderingKey, leased.orderingKey].sort(),
      );
    });

    it('settles several at once, and not one whose lease was lost', async () => {
      const [first, second, lost] = [
        aDelivery(randomUUID()),
        aDelivery(randomUUID()),
        aDelivery(randomUUID()),
      ];
      const lease = { owner: 'a', leaseUntil: t0 + 30_000 };
      await queue.enqueue([first, second], lease);
      await queue.enqueue([lost]);
      await queue.claim(lost.id, { owner: 'a', now: t0, leaseUntil: t0 + 1000 });
      await queue.claim(lost.id, { owner: 'b', now: t0 + 1000, leaseUntil: t0 + 30_000 });
      const held = (delivery: NewDelivery, until: number) => ({
        ...delivery,
        status: 'pending' as const,
        attempts: 0,
        lease: { owner: 'a', until },
      });
      expect(
        await queue.settleAll([
          { delivery: held(first, t0 + 30_000), settlement: { status: 'delivered' }, now: t0 + 10 },
          {
            delivery: held(second, t0 + 30_000),
            settlement: { status: 'pending', nextAttemptAt: t0 + 5000 },
            now: t0 + 10,
          },
          { delivery: held(lost, t0 + 1000), settlement: { status: 'delivered' }, now: t0 + 1500 },
        ]),
      ).toEqual([true, true, false]);
      expect(await queue.get(first.id)).toMatchObject({ status: 'delivered', attempts: 1, lease: null });
      expect(await queue.get(second.id)).toMatchObject({
        status: 'pending',
        attempts: 1,
        nextAttemptAt: t0 + 5000,
        lease: null,
      });
      expect(await queue.get(lost.id)).toMatchObject({ status: 'pending', lease: { owner: 'b' } });
      expect(await queue.settleAll([])).toEqual([]);
    });

    it('ends every lease on request', async () => {
      const delivery = aDelivery(randomUUID());
      await queue.enqueue([delivery]);
      await queue.claim(delivery.id, { owner: 'crashed', now: t0, leaseUntil: t0 + 3_600_000 });
      await queue.releaseLeases();
      expect(await queue.claim(delivery.id, { owner: 'restarted', now: t0, leaseUntil: t0 + 1 })).toBe(true);
    });
  });
};
