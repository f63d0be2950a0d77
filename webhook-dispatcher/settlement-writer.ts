import type { DeliveryAttempt, DeliveryLog } from '../webhooks/deliveries/delivery-log.ts';
import type { Delivery, DeliveryQueue, Settlement } from '../webhooks/deliveries/delivery-queue.ts';

/** Attempts whose log and settlement go in one write at most. */
const maxWriteBatch = 25;

type Pending = {
  attempt: DeliveryAttempt;
  settlement: { delivery: Delivery; settlement: Settlement; now: number };
  done: (settled: boolean) => void;
  failed: (error: unknown) => void;
};

/**
 * Attempt logs and settlements written together, a batch at a time (group commit): the first waits for
 * nobody, and what finishes while a batch is being written goes in the next. Two round trips a batch
 * where it was two a delivery. Each says whether its lease still held.
 */
export const createSettlementWriter = ({
  log,
  queue,
  now,
}: {
  log: Pick<DeliveryLog, 'recordAll'>;
  queue: Pick<DeliveryQueue, 'settleAll'>;
  now: () => Date;
}) => {
  const toWrite: Pending[] = [];
  let writing = false;
  const writeBatches = async () => {
    writing = true;
    while (toWrite.length > 0) {
      // Bounded: FerretDB 1.24 (SQLite) was seen never to answer a bulk update of 108 statements, and to
      // hold its write lock meanwhile.
      const batch = toWrite.splice(0, maxWriteBatch);
      try {
        await log.recordAll(batch.map(({ attempt }) => attempt));
        const settled = await queue.settleAll(batch.map(({ settlement }) => settlement));
        batch.forEach(({ done }, index) => done(settled[index]!));
      } catch (error) {
        for (const { failed } of batch) failed(error);
      }
    }
    writing = false;
  };
  return {
    /** Logs the attempt and settles its delivery; true while the lease held (the settlement counted). */
    recordAndSettle: (attempt: DeliveryAttempt, delivery: Delivery, settlement: Settlement) =>
      new Promise<boolean>((done, failed) => {
        toWrite.push({ attempt, settlement: { delivery, settlement, now: now().getTime() }, done, failed });
        if (!writing) void writeBatches();
      }),
  };
};
