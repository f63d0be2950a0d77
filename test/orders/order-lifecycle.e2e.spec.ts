import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { positionOfToken } from '../support/consistency-tokens.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';

let service: TestService;
let customer: OrderActor;
let staff: OrderActor;
let auditor: OrderActor;

beforeAll(async () => {
  // One customer places an order at a fresh address for each of these tests, within a minute: more than the
  // per-user write limits let a shopper (test/orders/write-limits.e2e.spec.ts holds those).
  service = await startTestService(loadTestWriteLimits);
  [customer, staff, auditor] = await Promise.all([
    orderActor(service, ['customer']),
    orderActor(service, ['staff']),
    orderActor(service, ['auditor']),
  ]);
});
afterAll(async () => service.stop());

const eventTypes = async (orderId: string) => {
  const response = await auditor.get(`/orders/${orderId}/events`);
  return ((await response.json()) as { type: string }[]).map((event) => event.type);
};

/**
 * The ETag staff read the order with: the order's representation is its reader's (its `actions`), so the
 * ETag a customer got differs from staff's, and staff send theirs in If-Match. Read once it is in the read model.
 */
const staffEtagOf = async (orderId: string) => {
  await expect.poll(async () => (await staff.get(`/orders/${orderId}`)).status).toBe(200);
  return (await staff.get(`/orders/${orderId}`)).headers.get('etag')!;
};

/** Given an order moved through these actions by staff. */
const orderIn = async (...actions: string[]) => {
  const { order } = await customer.placeOrder();
  for (const action of actions) {
    const response = await staff.post(`/orders/${order.id}/${action}`);
    if (response.status !== 200) throw new Error(`${action}: ${response.status}`);
  }
  return order.id;
};

describe('the order lifecycle over HTTP', () => {
  it('moves pending -> confirmed -> shipped -> delivered, each answer the order after the command', async () => {
    const { order } = await customer.placeOrder();
    let lastToken = 0n;
    for (const [action, status] of [
      ['confirm', 'confirmed'],
      ['ship', 'shipped'],
      ['deliver', 'delivered'],
    ] as const) {
      await service.clock.advance(60_000);
      const response = await staff.post(`/orders/${order.id}/${action}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const token = positionOfToken(response.headers.get('consistency-token')!);
      expect(token).toBeGreaterThan(lastToken);
      lastToken = token;
      const body = (await response.json()) as OrderBody;
      expect(body.status).toBe(status);
      expect(body.updatedAt).toBe(service.clock.now().toISOString());
      expect(body.createdAt).toBe(order.createdAt);
    }
    expect(await eventTypes(order.id)).toEqual([
      'OrderPlaced',
      'OrderConfirmed',
      'OrderShipped',
      'OrderDelivered',
    ]);
  });

  it.each([
    { given: [], action: 'ship', currentStatus: 'pending' },
    { given: [], action: 'deliver', currentStatus: 'pending' },
    { given: ['confirm'], action: 'confirm', currentStatus: 'confirmed' },
    { given: ['confirm', 'ship'], action: 'cancel', currentStatus: 'shipped' },
    { given: ['confirm', 'ship', 'deliver'], action: 'cancel', currentStatus: 'delivered' },
    { given: ['cancel'], action: 'confirm', currentStatus: 'cancelled' },
    { given: ['cancel'], action: 'cancel', currentStatus: 'cancelled' },
  ])(
    'refuses to $action a $currentStatus order: 409 invalid-state-transition, nothing appended',
    async ({ given, action, currentStatus }) => {
      const orderId = await orderIn(...given);
      const before = await eventTypes(orderId);
      const response = await staff.post(`/orders/${orderId}/${action}`);
      expect(response.status).toBe(409);
      const problem = await problemOf(response);
      expect(problem).toMatchObject({
        type: 'https://orders.example/problems/invalid-state-transition',
        status: 409,
        currentStatus,
        attemptedAction: action,
        instance: `/orders/${orderId}/${action}`,
      });
      expect(await eventTypes(orderId)).toEqual(before);
    },
  );

  it('lets the owner cancel a pending or confirmed order with a reason, and records it', async () => {
    const orderId = await orderIn('confirm');
    const response = await customer.post(`/orders/${orderId}/cancel`, { reason: 'Found it cheaper' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'cancelled',
      cancellationReason: 'Found it cheaper',
    });

    const withoutReason = await orderIn();
    const plain = await customer.post(`/orders/${withoutReason}/cancel`);
    expect(plain.status).toBe(200);
    expect(await plain.json()).toMatchObject({ status: 'cancelled', cancellationReason: null });
  });

  it("answers 404 to a customer acting on another customer's order, and 403 to a customer confirming", async () => {
    const orderId = await orderIn();
    const stranger = await orderActor(service, ['customer']);
    const cancel = await stranger.post(`/orders/${orderId}/cancel`);
    expect(cancel.status).toBe(404);
    expect((await problemOf(cancel)).type).toBe('https://orders.example/problems/not-found');
    const confirm = await customer.post(`/orders/${orderId}/confirm`);
    expect(confirm.status).toBe(403);
    const asAuditor = await auditor.post(`/orders/${orderId}/ship`);
    expect(asAuditor.status).toBe(403);
    expect(await eventTypes(orderId)).toEqual(['OrderPlaced']);
  });

  it('answers 404 to an unknown order and to an id that is not a UUID', async () => {
    expect((await staff.post('/orders/6f1c1d9e-7c43-4a38-9f57-3c4b8f3d2a11/confirm')).status).toBe(404);
    expect((await staff.post('/orders/12345/confirm')).status).toBe(404);
    expect((await staff.post('/orders/../../etc/passwd/confirm')).status).toBe(404);
  });

  it('refuses a body on confirm with unknown fields, and an over-long cancellation reason', async () => {
    const orderId = await orderIn();
    const confirm = await staff.post(`/orders/${orderId}/confirm`, { status: 'shipped' });
    expect(confirm.status).toBe(400);
    expect((await problemOf(confirm)).errors).toEqual([{ field: 'status', message: 'unknown field' }]);
    const cancel = await customer.post(`/orders/${orderId}/cancel`, { reason: 'x'.repeat(501) });
    expect(cancel.status).toBe(400);
    expect((await problemOf(cancel)).errors?.[0]?.field).toBe('reason');
    expect(await eventTypes(orderId)).toEqual(['OrderPlaced']);
  });

  it('ships with the details given: the answer, a later GET and the event carry them, the missing ones null', async () => {
    const orderId = await orderIn('confirm');
    const shipped = await staff.post(`/orders/${orderId}/ship`, {
      carrier: 'DHL',
      trackingUrl: 'https://www.dhl.example/track?id=JD0001',
    });
    expect(shipped.status).toBe(200);
    const shipment = {
      carrier: 'DHL',
      trackingNumber: null,
      trackingUrl: 'https://www.dhl.example/track?id=JD0001',
      shippedAt: service.clock.now().toISOString(),
    };
    const answer = (await shipped.json()) as OrderBody & { shipment?: unknown };
    expect(answer.shipment).toEqual(shipment);
    const read = await staff.get(`/orders/${orderId}`, {
      'Consistency-Token': shipped.headers.get('consistency-token')!,
    });
    expect(((await read.json()) as { shipment?: unknown }).shipment).toEqual(shipment);
    expect(read.headers.get('etag')).toBe(shipped.headers.get('etag'));
    const events = (await (await auditor.get(`/orders/${orderId}/events`)).json()) as {
      type: string;
      version: number;
      data: Record<string, unknown>;
    }[];
    expect(events.at(-1)).toMatchObject({
      type: 'OrderShipped',
      version: 2,
      data: { carrier: 'DHL', trackingNumber: null, trackingUrl: shipment.trackingUrl },
    });
  });

  it('refuses ship details that break its rules, every problem at once, and ships nothing', async () => {
    const orderId = await orderIn('confirm');
    const refused = await staff.post(`/orders/${orderId}/ship`, {
      carrier: '',
      trackingNumber: 'x'.repeat(201),
      trackingUrl: 'http://tracking.example/1',
      eta: 'tomorrow',
    });
    expect(refused.status).toBe(400);
    expect((await problemOf(refused)).errors?.map((error) => error.field).sort()).toEqual([
      'carrier',
      'eta',
      'trackingNumber',
      'trackingUrl',
    ]);
    expect(await eventTypes(orderId)).toEqual(['OrderPlaced', 'OrderConfirmed']);
    const order = (await (await staff.get(`/orders/${orderId}`)).json()) as { status: string };
    expect(order).not.toHaveProperty('shipment');
  });

  it('records who acted and the request it came from in every event', async () => {
    const orderId = await orderIn();
    await staff.post(`/orders/${orderId}/confirm`, undefined, { 'X-Request-Id': 'support-ticket-4711' });
    const events = (await (await auditor.get(`/orders/${orderId}/events`)).json()) as {
      type: string;
      actor: { userId: string; roles: string[] };
      correlationId: string;
    }[];
    expect(events[0]!.actor).toEqual({ userId: customer.id, roles: ['customer'] });
    expect(events[1]).toMatchObject({
      type: 'OrderConfirmed',
      actor: { userId: staff.id, roles: ['staff'] },
      correlationId: 'support-ticket-4711',
    });
  });
});

describe('payments', () => {
  it('records a payment (staff), answering the order with the payment', async () => {
    const orderId = await orderIn('confirm');
    const response = await staff.post(`/orders/${orderId}/payments`, {
      amount: { amount: 39.98, currency: 'EUR' },
      reference: 'PSP-123',
    });
    expect(response.status).toBe(200);
    const order = (await response.json()) as OrderBody;
    expect(order.payments).toEqual([
      {
        id: expect.any(String),
        amount: { amount: 39.98, currency: 'EUR' },
        reference: 'PSP-123',
        receivedAt: service.clock.now().toISOString(),
      },
    ]);
    expect(await eventTypes(orderId)).toEqual(['OrderPlaced', 'OrderConfirmed', 'PaymentReceived']);
  });

  it("refuses another currency, too many decimals, a non-positive amount, and a customer's attempt", async () => {
    const orderId = await orderIn();
    const usd = await staff.post(`/orders/${orderId}/payments`, {
      amount: { amount: 10, currency: 'USD' },
      reference: 'r',
    });
    expect(usd.status).toBe(400);
    expect((await problemOf(usd)).errors).toEqual([
      { field: 'amount.currency', message: "must be the order's currency EUR" },
    ]);
    const shape = await staff.post(`/orders/${orderId}/payments`, {
      amount: { amount: 1.234, currency: 'EUR' },
      reference: '',
    });
    expect((await problemOf(shape)).errors?.map((error) => error.field).sort()).toEqual([
      'amount.amount',
      'reference',
    ]);
    const negative = await staff.post(`/orders/${orderId}/payments`, {
      amount: { amount: -5, currency: 'XXX' },
      reference: 'r',
    });
    expect((await problemOf(negative)).errors?.map((error) => error.field).sort()).toEqual([
      'amount.amount',
      'amount.currency',
    ]);
    expect(
      (
        await customer.post(`/orders/${orderId}/payments`, {
          amount: { amount: 1, currency: 'EUR' },
          reference: 'r',
        })
      ).status,
    ).toBe(403);
    expect(await eventTypes(orderId)).toEqual(['OrderPlaced']);
  });

  it('takes no payment on a cancelled order: 409', async () => {
    const orderId = await orderIn('cancel');
    const response = await staff.post(`/orders/${orderId}/payments`, {
      amount: { amount: 1, currency: 'EUR' },
      reference: 'late',
    });
    expect(response.status).toBe(409);
    expect(await problemOf(response)).toMatchObject({
      detail: 'You cannot record a payment for a cancelled order.',
      currentStatus: 'cancelled',
      attemptedAction: 'record-payment',
    });
  });

  it('counts a payment reference once: the same amount again answers the order as it is, appending nothing', async () => {
    const orderId = await orderIn('confirm');
    const payment = { amount: { amount: 10, currency: 'EUR' }, reference: 'PSP-once' };
    const first = await staff.post(`/orders/${orderId}/payments`, payment);
    expect(first.status).toBe(200);
    const recorded = (await first.json()) as OrderBody;
    await service.clock.advance(60_000);
    const again = await staff.post(`/orders/${orderId}/payments`, payment);
    expect(again.status).toBe(200);
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await again.json()).toEqual(recorded);
    expect(recorded.payments).toHaveLength(1);
    // Its Consistency-Token works like any other: the read sees the order as it is.
    const read = await staff.get(`/orders/${orderId}`, {
      'Consistency-Token': again.headers.get('consistency-token')!,
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(recorded);
    expect(await eventTypes(orderId)).toEqual(['OrderPlaced', 'OrderConfirmed', 'PaymentReceived']);
  });

  it('answers the same reference and amount as the first even once the order is paid in full, or cancelled', async () => {
    const paidInFull = await orderIn('confirm');
    const whole = { amount: { amount: 39.98, currency: 'EUR' }, reference: 'PSP-whole' };
    expect((await staff.post(`/orders/${paidInFull}/payments`, whole)).status).toBe(200);
    expect((await staff.post(`/orders/${paidInFull}/payments`, whole)).status).toBe(200);
    // Another reference is another payment: the order has nothing outstanding.
    const more = await staff.post(`/orders/${paidInFull}/payments`, { ...whole, reference: 'PSP-more' });
    expect(more.status).toBe(400);
    expect((await problemOf(more)).errors).toEqual([
      { field: 'amount.amount', message: 'the order is paid in full' },
    ]);

    const cancelled = await orderIn();
    const part = { amount: { amount: 5, currency: 'EUR' }, reference: 'PSP-before-cancel' };
    expect((await staff.post(`/orders/${cancelled}/payments`, part)).status).toBe(200);
    expect((await customer.post(`/orders/${cancelled}/cancel`, {})).status).toBe(200);
    const retried = await staff.post(`/orders/${cancelled}/payments`, part);
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({
      status: 'cancelled',
      refundDue: { amount: 5, currency: 'EUR' },
    });
    expect(await eventTypes(paidInFull)).toEqual(['OrderPlaced', 'OrderConfirmed', 'PaymentReceived']);
    expect(await eventTypes(cancelled)).toEqual(['OrderPlaced', 'PaymentReceived', 'OrderCancelled']);
  });

  it('refuses the same reference with another amount: 409 naming the reference and what it recorded', async () => {
    const orderId = await orderIn('confirm');
    const first = { amount: { amount: 12.5, currency: 'EUR' }, reference: 'PSP-amount' };
    expect((await staff.post(`/orders/${orderId}/payments`, first)).status).toBe(200);
    const other = await staff.post(`/orders/${orderId}/payments`, {
      ...first,
      amount: { amount: 12.4, currency: 'EUR' },
    });
    expect(other.status).toBe(409);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = await problemOf(other);
    expect(problem).toMatchObject({
      type: 'https://orders.example/problems/conflict',
      status: 409,
      reference: 'PSP-amount',
      recordedAmount: { amount: 12.5, currency: 'EUR' },
    });
    expect(problem.detail).toContain('PSP-amount');
    expect(problem.detail).toContain('12.50 EUR');
    // The same reference on another order is that order's payment.
    const elsewhere = await orderIn('confirm');
    expect((await staff.post(`/orders/${elsewhere}/payments`, first)).status).toBe(200);
    expect(await eventTypes(orderId)).toEqual(['OrderPlaced', 'OrderConfirmed', 'PaymentReceived']);
  });

  it('cancels a paid order, which then shows refundDue: what was paid, in its currency', async () => {
    const orderId = await orderIn('confirm');
    for (const [amount, reference] of [
      [10, 'PSP-a'],
      [5.49, 'PSP-b'],
    ] as const) {
      expect(
        (await staff.post(`/orders/${orderId}/payments`, { amount: { amount, currency: 'EUR' }, reference }))
          .status,
      ).toBe(200);
    }
    const cancelled = await customer.post(`/orders/${orderId}/cancel`, { reason: 'found it cheaper' });
    expect(cancelled.status).toBe(200);
    const order = (await cancelled.json()) as OrderBody & { refundDue?: unknown };
    expect(order.status).toBe('cancelled');
    expect(order.refundDue).toEqual({ amount: 15.49, currency: 'EUR' });
    const read = await customer.get(`/orders/${orderId}`, {
      'Consistency-Token': cancelled.headers.get('consistency-token')!,
    });
    expect(await read.json()).toEqual(order);
    expect(read.headers.get('etag')).toBe(cancelled.headers.get('etag'));
  });

  it('shows no refundDue on an unpaid cancelled order, nor on a paid order not cancelled', async () => {
    const unpaid = await orderIn();
    const cancelled = await staff.post(`/orders/${unpaid}/cancel`);
    expect(await cancelled.json()).not.toHaveProperty('refundDue');
    const read = await staff.get(`/orders/${unpaid}`, {
      'Consistency-Token': cancelled.headers.get('consistency-token')!,
    });
    expect(await read.json()).toMatchObject({ status: 'cancelled', cancellationReason: null });
    const paid = await orderIn('confirm');
    const answer = await staff.post(`/orders/${paid}/payments`, {
      amount: { amount: 1, currency: 'EUR' },
      reference: 'PSP-kept',
    });
    expect(await answer.json()).not.toHaveProperty('refundDue');
  });

  it.each([
    ['ship', [], 'You cannot ship a pending order.'],
    ['confirm', ['confirm', 'ship'], 'You cannot confirm a shipped order.'],
    ['cancel', ['confirm', 'ship', 'deliver'], 'You cannot cancel a delivered order.'],
    ['deliver', ['cancel'], 'You cannot deliver a cancelled order.'],
  ])('says in a sentence why it refuses to %s (409)', async (action, before, sentence) => {
    const orderId = await orderIn(...before);
    const response = await staff.post(`/orders/${orderId}/${action}`);
    expect(response.status).toBe(409);
    expect((await problemOf(response)).detail).toBe(sentence);
  });
});

describe('preconditions on transitions (If-Match, If-Unmodified-Since, If-None-Match)', () => {
  it('applies the command when the ETag is current, and answers 412 with nothing appended when stale', async () => {
    const { order, etag: customersEtag } = await customer.placeOrder();
    const etag = await staffEtagOf(order.id);
    // The customer's ETag is another representation's (the customer may only cancel): not staff's version.
    expect(customersEtag).not.toBe(etag);
    expect(
      (await staff.post(`/orders/${order.id}/confirm`, undefined, { 'If-Match': customersEtag })).status,
    ).toBe(412);
    const confirmed = await staff.post(`/orders/${order.id}/confirm`, undefined, { 'If-Match': etag });
    expect(confirmed.status).toBe(200);

    const stale = await staff.post(`/orders/${order.id}/ship`, undefined, { 'If-Match': etag });
    expect(stale.status).toBe(412);
    expect((await problemOf(stale)).type).toBe('https://orders.example/problems/precondition-failed');
    expect(await eventTypes(order.id)).toEqual(['OrderPlaced', 'OrderConfirmed']);

    const current = confirmed.headers.get('etag')!;
    expect(
      (await staff.post(`/orders/${order.id}/ship`, undefined, { 'If-Match': `W/${current}` })).status,
    ).toBe(412);
    expect(
      (await staff.post(`/orders/${order.id}/ship`, undefined, { 'If-Match': `"other", ${current}` })).status,
    ).toBe(200);
    expect((await staff.post(`/orders/${order.id}/deliver`, undefined, { 'If-Match': '*' })).status).toBe(
      200,
    );
  });

  it('If-Unmodified-Since, when If-Match is absent: 412 once the order changed after that date', async () => {
    const { order } = await customer.placeOrder();
    const placedAt = Date.parse(order.updatedAt);
    const before = new Date(placedAt - 2000).toUTCString();
    const after = new Date(placedAt + 2000).toUTCString();
    const refused = await staff.post(`/orders/${order.id}/confirm`, undefined, {
      'If-Unmodified-Since': before,
    });
    expect(refused.status).toBe(412);
    expect(await eventTypes(order.id)).toEqual(['OrderPlaced']);
    // Ignored when If-Match is present (RFC 9110, 13.2.2), and when it is not a date.
    expect(
      (await staff.post(`/orders/${order.id}/confirm`, undefined, { 'If-Unmodified-Since': 'yesterday' }))
        .status,
    ).toBe(200);
    expect(
      (
        await staff.post(`/orders/${order.id}/ship`, undefined, {
          'If-Match': '*',
          'If-Unmodified-Since': before,
        })
      ).status,
    ).toBe(200);
    expect(
      (await staff.post(`/orders/${order.id}/deliver`, undefined, { 'If-Unmodified-Since': after })).status,
    ).toBe(200);
  });

  it('If-None-Match: * on an existing order answers 412; a list with its current ETag too', async () => {
    const { order } = await customer.placeOrder();
    const etag = await staffEtagOf(order.id);
    expect(
      (await staff.post(`/orders/${order.id}/confirm`, undefined, { 'If-None-Match': '*' })).status,
    ).toBe(412);
    expect(
      (await staff.post(`/orders/${order.id}/confirm`, undefined, { 'If-None-Match': etag })).status,
    ).toBe(412);
    expect(await eventTypes(order.id)).toEqual(['OrderPlaced']);
    const other = await staff.post(`/orders/${order.id}/confirm`, undefined, { 'If-None-Match': '"other"' });
    expect(other.status).toBe(200);
  });

  it('answers 404, not 412, for an order that does not exist', async () => {
    const response = await staff.post('/orders/6f1c1d9e-7c43-4a38-9f57-3c4b8f3d2a11/confirm', undefined, {
      'If-Match': '"abc"',
    });
    expect(response.status).toBe(404);
  });
});
