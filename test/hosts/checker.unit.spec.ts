import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { classifyAnswers } from './support/fault-case.ts';
import type { LoadOrder, WriteKind } from './support/load.ts';
import { checkLog, type LogEvent } from './support/log-check.ts';
import { checkWebhooks, type Receipt } from './support/webhook-check.ts';

// The fault suite's checker on made-up histories: each kind of violation it must find, found.

const order = (id: string, kinds: WriteKind[]): LoadOrder => ({
  id,
  customerId: 'customer',
  total: { amount: 9.99, currency: 'EUR' },
  writes: kinds.map((kind, index) => ({
    kind,
    orderId: id,
    requestId: `${id}-${index}`,
    acknowledgedAt: 1000,
  })),
  unsettled: null,
});

const typeOf: Record<WriteKind, string> = {
  place: 'OrderPlaced',
  confirm: 'OrderConfirmed',
  pay: 'PaymentReceived',
  ship: 'OrderShipped',
  deliver: 'OrderDelivered',
  cancel: 'OrderCancelled',
};

/** The log a correct service writes for these orders: one event per write, at increasing revisions. */
const faithfulLog = (orders: LoadOrder[]): LogEvent[] =>
  orders.flatMap((placed) =>
    placed.writes.map((write, revision) => ({
      id: `event-${write.requestId}`,
      streamId: `order-${placed.id}`,
      revision,
      type: typeOf[write.kind],
      requestId: write.requestId,
    })),
  );

describe('the log check', () => {
  const orders = [order('a', ['place', 'confirm', 'pay']), order('b', ['place', 'cancel'])];

  it('passes a log holding each acknowledged write once, in order', () => {
    const verdict = checkLog(orders, faithfulLog(orders));
    expect(verdict).toMatchObject({ acknowledged: 5, lost: [], duplicated: [], outOfOrder: [] });
  });

  it('finds a write missing, one appended twice (even as a second order), and two swapped', () => {
    const log = faithfulLog(orders);
    const withoutConfirm = log.filter((event) => event.requestId !== 'a-1');
    expect(checkLog(orders, withoutConfirm).lost.map((write) => write.requestId)).toEqual(['a-1']);
    const placedTwice = [...log, { ...log[0]!, id: 'other', streamId: 'order-c' }];
    expect(checkLog(orders, placedTwice).duplicated.map((write) => write.requestId)).toEqual(['a-0']);
    const swapped = log.map((event) =>
      event.requestId === 'b-0'
        ? { ...event, revision: 1 }
        : event.requestId === 'b-1'
          ? { ...event, revision: 0 }
          : event,
    );
    expect(checkLog(orders, swapped).outOfOrder.map((write) => write.requestId)).toEqual(['b-1']);
  });
});

describe('the webhook check', () => {
  const secret = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
  const orders = [order('a', ['place', 'confirm'])];
  const { eventOf } = checkLog(orders, faithfulLog(orders));
  let index = 0;
  const receipt = (eventId: string, body: string, { signWith = secret, at = 2000 } = {}): Receipt => {
    const timestamp = new Date();
    return {
      index: index++,
      receivedAt: at,
      path: '/hooks/a',
      headers: {
        'webhook-id': eventId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': new Webhook(signWith).sign(eventId, timestamp, body),
      },
      body,
    };
  };
  const check = (receipts: Receipt[]) =>
    checkWebhooks(orders, eventOf, receipts, [{ path: '/hooks/a', secret }], { lateAfterMs: 15_000 });

  it('passes every owed webhook received once, signed, in order; a duplicate of the same bytes is allowed', () => {
    const verdict = check([
      receipt('event-a-0', '{"n":0}'),
      receipt('event-a-1', '{"n":1}'),
      receipt('event-a-1', '{"n":1}'),
    ]);
    expect(verdict).toMatchObject({ owed: 2, delivered: 2, missing: [], outOfOrder: 0, duplicates: 1 });
    expect(verdict).toMatchObject({ badSignatures: 0, differingDuplicates: 0, late: 0 });
  });

  it('finds one missing, one overtaken, one badly signed, one again with other bytes, one late', () => {
    expect(check([receipt('event-a-0', '{}')]).missing).toHaveLength(1);
    expect(check([receipt('event-a-1', '{}'), receipt('event-a-0', '{}')]).outOfOrder).toBe(1);
    const forged = `whsec_${Buffer.from('another secret of 32 bytes!!!!!!').toString('base64')}`;
    expect(check([receipt('event-a-0', '{}', { signWith: forged })]).badSignatures).toBe(1);
    expect(
      check([receipt('event-a-0', '{"a":1}'), receipt('event-a-0', '{"a":2}')]).differingDuplicates,
    ).toBe(1);
    expect(check([receipt('event-a-0', '{}', { at: 1000 + 15_001 })]).late).toBe(1);
  });

  it('says when the last webhook owed for a write before a moment arrived, and accepts old timestamps', () => {
    const tenMinutesAgo = new Date(Date.now() - 600_000);
    const old = receipt('event-a-0', '{"n":0}', { at: 7000 });
    old.headers['webhook-timestamp'] = String(Math.floor(tenMinutesAgo.getTime() / 1000));
    old.headers['webhook-signature'] = new Webhook(secret).sign('event-a-0', tenMinutesAgo, '{"n":0}');
    const verdict = checkWebhooks(
      orders,
      eventOf,
      [old, receipt('event-a-1', '{"n":1}', { at: 9000 })],
      [{ path: '/hooks/a', secret }],
      { lateAfterMs: 15_000, backlogOf: 1000 },
    );
    expect(verdict).toMatchObject({ badSignatures: 0, delivered: 2, backlogDeliveredAt: 9000 });
  });
});

describe('the answers check', () => {
  it('accepts 2xx, 4xx and 503 with Retry-After; counts a 500, a 502, a bare 503 and a hang against it', () => {
    const exchange = (outcome: number | 'timeout', retryAfter: string | null = null) => ({
      at: 0,
      operation: 'x',
      outcome,
      latencyMs: 1,
      retryAfter,
      requestId: outcome === 'timeout' ? null : `request-${outcome}-${retryAfter ?? 'bare'}`,
    });
    const answers = classifyAnswers(
      [
        exchange(201),
        exchange(409),
        exchange(503, '1'),
        exchange(500),
        exchange(502),
        exchange(503),
        exchange('timeout'),
      ],
      7,
    );
    expect(answers).toMatchObject({
      requests: 7,
      perSecond: 1,
      serverErrors: 2,
      unavailableWithoutRetryAfter: 1,
      hangs: 1,
      // The 5xx to look up in the logs, by the request ids they carried.
      serverErrorRequestIds: ['request-500-bare', 'request-502-bare'],
    });
  });
});
