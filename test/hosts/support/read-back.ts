import type { CarefulClient } from './careful-client.ts';
import type { LoadActor, LoadOrder, WriteKind } from './load.ts';

const statusAfter: Partial<Record<WriteKind, string>> = {
  place: 'pending',
  confirm: 'confirmed',
  ship: 'shipped',
  deliver: 'delivered',
  cancel: 'cancelled',
};

/** The statuses an order may show: after its last acknowledged change, or after the one left unsettled. */
export const statusesAllowed = (order: LoadOrder): string[] => {
  const changes = order.writes.map((write) => statusAfter[write.kind]).filter(Boolean) as string[];
  const acknowledged = changes.at(-1)!;
  const unsettled = order.unsettled && statusAfter[order.unsettled];
  return unsettled ? [acknowledged, unsettled] : [acknowledged];
};

export type ReadBackMismatch = { orderId: string; found: string };

/**
 * Every acknowledged order read back (by staff, through the router, once the read models are known to be
 * past the load's last write) with every acknowledged change: its status, and each payment's reference.
 */
export const readBack = async (
  client: CarefulClient,
  reader: LoadActor,
  orders: readonly LoadOrder[],
): Promise<ReadBackMismatch[]> => {
  const mismatches: ReadBackMismatch[] = [];
  for (const order of orders) {
    const read = await client.read('read back', `/orders/${order.id}`, reader.auth);
    if (read.status !== 200) {
      mismatches.push({ orderId: order.id, found: `status ${read.status}` });
      continue;
    }
    const body = read.body as { status: string; payments: { reference: string }[] };
    const references = new Set(body.payments.map(({ reference }) => reference));
    const unpaid = order.writes.filter((write) => write.kind === 'pay' && !references.has(write.reference!));
    if (!statusesAllowed(order).includes(body.status) || unpaid.length > 0) {
      mismatches.push({
        orderId: order.id,
        found: `${body.status} with ${references.size} payments (acknowledged: ${order.writes.map((w) => w.kind).join(', ')})`,
      });
    }
  }
  return mismatches;
};
