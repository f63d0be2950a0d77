import type { Delivery, DeliveryQueue, Settlement } from '../webhooks/deliveries/delivery-queue.ts';
import type { createDeliveryAttempt } from './delivery-attempt.ts';
import { lineOf } from './delivery-line.ts';
import type { InFlightLimits } from './in-flight-limits.ts';
import type { RetryTimes, StoreOrderedLines } from './store-lines.ts';

/** The lines this instance holds from acceptance, each in order: delivered without reading the store. */
export const createHeldLines = ({
  queue,
  attempt,
  instanceId,
  leaseMs,
  now,
  limits,
  storeOrdered,
  retryTimes,
  wake,
  isStopped,
}: {
  queue: Pick<DeliveryQueue, 'release'>;
  attempt: ReturnType<typeof createDeliveryAttempt>;
  instanceId: string;
  leaseMs: number;
  now: () => Date;
  limits: InFlightLimits;
  storeOrdered: StoreOrderedLines;
  retryTimes: RetryTimes;
  wake: () => void;
  isStopped: () => boolean;
}) => {
  const held = new Map<string, Delivery[]>();

  /** Hands a held line to the store's order: its leases end, so that whoever is due takes them in order. */
  const handBack = async (line: string, also: readonly Delivery[] = []) => {
    const rest = held.get(line) ?? [];
    held.delete(line);
    storeOrdered.leaveToStore(line);
    wake();
    await queue.release(
      [...also, ...rest].map(({ id }) => id),
      instanceId,
    );
  };

  /** An attempt of a held delivery; a retry, a lost lease or a failure hands its line to the store. */
  const attemptHeld = async (delivery: Delivery) => {
    const line = lineOf(delivery);
    // Waited behind slow attempts for half its lease: the store's order from here on, with fresh claims.
    if (delivery.lease!.until - now().getTime() < leaseMs / 2) return handBack(line, [delivery]);
    let result: { settlement: Settlement; settled: boolean } | undefined;
    try {
      result = await attempt(delivery);
    } finally {
      if (!result || !result.settled || result.settlement.status === 'pending') {
        if (result?.settlement.status === 'pending') retryTimes.add(result.settlement.nextAttemptAt);
        await handBack(line);
      }
    }
  };

  /** Starts the heads of held lines, as far as the limits allow. */
  const pump = () => {
    for (const [line, deliveries] of held) {
      if (isStopped() || limits.isFull()) return;
      if (limits.isActive(line)) continue;
      const head = deliveries[0];
      if (!head) {
        held.delete(line);
        continue;
      }
      if (limits.isSaturated(head.subscriptionId)) continue;
      deliveries.shift();
      if (deliveries.length === 0) held.delete(line);
      limits.launch(
        head,
        () => attemptHeld(head),
        () => undefined,
      );
    }
  };

  return {
    pump,
    has: (line: string) => held.has(line),
    /** Holds a delivery inserted under this instance's lease, behind the others of its line. */
    hold: (delivery: Delivery) => {
      const line = lineOf(delivery);
      const deliveries = held.get(line) ?? [];
      deliveries.push(delivery);
      held.set(line, deliveries);
    },
    async releaseAll() {
      const rest = [...held.values()].flat();
      held.clear();
      await queue.release(
        rest.map(({ id }) => id),
        instanceId,
      );
    },
  };
};

export type HeldLines = ReturnType<typeof createHeldLines>;
