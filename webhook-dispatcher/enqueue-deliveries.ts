import type { Logger } from 'pino';
import type { Delivery, DeliveryQueue, NewDelivery } from '../webhooks/deliveries/delivery-queue.ts';
import { lineOf } from './delivery-line.ts';
import type { HeldLines } from './held-lines.ts';
import type { InFlightLimits } from './in-flight-limits.ts';
import type { StoreOrderedLines } from './store-lines.ts';

/**
 * The entry of accepted deliveries, behind the fence: the lines another instance left pending are learnt
 * first (at the start, and again after a failed read or when the bus moves partitions here).
 */
export const createEnqueueDeliveries = ({
  queue,
  instanceId,
  leaseMs,
  now,
  logger,
  limits,
  storeOrdered,
  held,
  wake,
  isStopped,
}: {
  queue: Pick<DeliveryQueue, 'enqueue' | 'get' | 'release' | 'pendingLines'>;
  instanceId: string;
  leaseMs: number;
  now: () => Date;
  logger: Logger;
  limits: InFlightLimits;
  storeOrdered: StoreOrderedLines;
  held: HeldLines;
  wake: () => void;
  isStopped: () => boolean;
}) => {
  /**
   * Learns which lines have pending deliveries this instance does not hold: an instance taking over the
   * bus's partitions from another (or starting) must not overtake what the other left.
   */
  const fence = async () => {
    for (const pending of await queue.pendingLines()) {
      const line = lineOf(pending);
      if (!held.has(line) && !limits.isActive(line)) storeOrdered.leaveToStore(line);
    }
    wake();
  };
  let fenced: Promise<void> = fence();
  fenced.catch(() => undefined);

  /** Holds the deliveries inserted under this instance's lease; says those whose line the store took since. */
  const holdClaimed = (
    mine: readonly NewDelivery[],
    claimed: Set<string>,
    lease: NonNullable<Delivery['lease']>,
  ) => {
    const handBackNow: Delivery[] = [];
    for (const delivery of mine) {
      if (!claimed.has(delivery.id)) continue;
      const taken: Delivery = { ...delivery, status: 'pending', attempts: 0, lease };
      if (storeOrdered.has(lineOf(delivery))) {
        handBackNow.push(taken);
        continue;
      }
      held.hold(taken);
    }
    return handBackNow;
  };

  /**
   * Makes accepted deliveries durable. Those of lines this instance may deliver in the bus's order are
   * inserted under its lease and held; the others are stored unclaimed and the worker woken for them.
   */
  const enqueue = async (deliveries: readonly NewDelivery[]) => {
    try {
      await fenced;
    } catch {
      fenced = fence();
      await fenced;
    }
    const at = now().getTime();
    const lease = { owner: instanceId, until: at + leaseMs };
    const mine = isStopped() ? [] : deliveries.filter((delivery) => !storeOrdered.has(lineOf(delivery)));
    const others = deliveries.filter((delivery) => !mine.includes(delivery));
    const claimed = new Set(
      mine.length > 0 ? await queue.enqueue(mine, { owner: instanceId, leaseUntil: lease.until }) : [],
    );
    if (others.length > 0) {
      for (const delivery of others) storeOrdered.leaveToStore(lineOf(delivery));
      await queue.enqueue(others);
      wake();
    }
    // Accepted before (the bus handed the batch again): the line is this instance's only if it holds it.
    const again = mine.filter((delivery) => !claimed.has(delivery.id));
    for (const delivery of again) {
      const line = lineOf(delivery);
      if (!held.has(line) && !limits.isActive(line)) storeOrdered.leaveToStore(line);
    }
    if (again.length > 0) {
      // Rare (a batch handed again after a failure or a rebalance), so worth a read each: where they are.
      const found = await Promise.all(again.map(({ id }) => queue.get(id)));
      logger.warn(
        {
          deliveries: again.map(({ id, eventId }, index) => ({
            id,
            eventId,
            status: found[index]?.status ?? 'not found',
          })),
        },
        'deliveries accepted again (the bus handed their batch again): the store holds them already',
      );
    }
    const handBackNow = holdClaimed(mine, claimed, lease);
    if (handBackNow.length > 0) {
      await queue.release(
        handBackNow.map(({ id }) => id),
        instanceId,
      );
      wake();
    }
    held.pump();
  };

  return {
    enqueue,
    async fence() {
      fenced = fence();
      await fenced;
    },
  };
};
