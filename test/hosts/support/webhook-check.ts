import { Webhook } from 'standardwebhooks';
import type { AcknowledgedWrite, LoadOrder } from './load.ts';
import type { LogEvent } from './log-check.ts';

/** A POST the receiver host recorded, as `GET /received` lists it. */
export type Receipt = {
  index: number;
  receivedAt: string | number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
};

/** A subscription of the load: the path it delivers to on the receiver, and its signing secret. */
export type Subscriber = { path: string; secret: string };

export type WebhookVerdict = {
  owed: number;
  delivered: number;
  /** Owed webhooks first received more than `lateAfterMs` after their write was acknowledged. */
  late: number;
  missing: { path: string; write: AcknowledgedWrite; event: LogEvent }[];
  badSignatures: number;
  /** The same webhook-id received with different bytes (at least once allows only the same bytes again). */
  differingDuplicates: number;
  duplicates: number;
  /** Within an order, a webhook first received before one of an earlier event of that order. */
  outOfOrder: number;
  /**
   * When the last webhook owed for a write acknowledged before `backlogOf` was first received (ms since the
   * epoch; null when there were none): what a fault held back, delivered.
   */
  backlogDeliveredAt: number | null;
};

const header = (receipt: Receipt, name: string) => {
  const value = receipt.headers[name] ?? receipt.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

const millisOf = (at: string | number) => (typeof at === 'number' ? at : Date.parse(at));

/**
 * The receipts of one subscriber whose signature holds under its secret: the signature standardwebhooks
 * makes of the id, the timestamp and the bytes received is among those sent. (Its `verify` also refuses a
 * timestamp older than five minutes, which a suite checking earlier cases' webhooks again would hit.)
 */
const signedReceipts = (receipts: readonly Receipt[], subscriber: Subscriber) => {
  const webhook = new Webhook(subscriber.secret);
  const valid: Receipt[] = [];
  let bad = 0;
  for (const receipt of receipts.filter(({ path }) => path === subscriber.path)) {
    const id = header(receipt, 'webhook-id') ?? '';
    const timestamp = Number(header(receipt, 'webhook-timestamp'));
    const sent = (header(receipt, 'webhook-signature') ?? '').split(' ');
    const signed =
      Number.isInteger(timestamp) &&
      sent.includes(webhook.sign(id, new Date(timestamp * 1000), receipt.body));
    if (signed) valid.push(receipt);
    else bad++;
  }
  return { valid, bad };
};

/**
 * Every webhook an acknowledged write owes (each subscriber takes every order event) received at least
 * once with a valid signature; again only as the same bytes; within an order, first receipts in the order
 * of the events' revisions.
 */
export const checkWebhooks = (
  orders: readonly LoadOrder[],
  eventOf: ReadonlyMap<string, LogEvent>,
  receipts: readonly Receipt[],
  subscribers: readonly Subscriber[],
  { lateAfterMs, backlogOf = 0 }: { lateAfterMs: number; backlogOf?: number },
): WebhookVerdict => {
  const verdict: WebhookVerdict = {
    owed: 0,
    delivered: 0,
    late: 0,
    missing: [],
    badSignatures: 0,
    differingDuplicates: 0,
    duplicates: 0,
    outOfOrder: 0,
    backlogDeliveredAt: null,
  };
  const revisionOf = new Map([...eventOf.values()].map((event) => [event.id, event]));
  for (const subscriber of subscribers) {
    const { valid, bad } = signedReceipts(receipts, subscriber);
    verdict.badSignatures += bad;
    const first = new Map<string, Receipt>();
    for (const receipt of valid) {
      const id = header(receipt, 'webhook-id')!;
      const earlier = first.get(id);
      if (!earlier) first.set(id, receipt);
      else {
        verdict.duplicates++;
        if (earlier.body !== receipt.body) verdict.differingDuplicates++;
      }
    }
    for (const order of orders) {
      let lastRevision = -1;
      // This order's events as first received, in the order received.
      const received = [...first.values()]
        .map((receipt) => ({ receipt, event: revisionOf.get(header(receipt, 'webhook-id')!) }))
        .filter(({ event }) => event?.streamId.endsWith(order.id))
        .sort((a, b) => a.receipt.index - b.receipt.index);
      for (const { event } of received) {
        if (event!.revision < lastRevision) verdict.outOfOrder++;
        lastRevision = Math.max(lastRevision, event!.revision);
      }
      for (const write of order.writes) {
        const event = eventOf.get(write.requestId);
        if (!event) continue; // lost from the log: the log check reports it
        verdict.owed++;
        const receipt = first.get(event.id);
        if (!receipt) {
          verdict.missing.push({ path: subscriber.path, write, event });
          continue;
        }
        verdict.delivered++;
        const receivedAt = millisOf(receipt.receivedAt);
        if (receivedAt - write.acknowledgedAt > lateAfterMs) verdict.late++;
        if (write.acknowledgedAt <= backlogOf)
          verdict.backlogDeliveredAt = Math.max(verdict.backlogDeliveredAt ?? 0, receivedAt);
      }
    }
  }
  return verdict;
};
