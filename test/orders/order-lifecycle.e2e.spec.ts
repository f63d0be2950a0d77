import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStreamName } from '../../domain/orders/order.ts';
import {
  expectInvalidFields,
  expectNewEvents,
  expectNoNewEvents,
  expectProblem,
  expectResponse,
} from '../support/api-expectations.ts';
import { apiSpecification, type ApiSpecification, type ApiUser } from '../support/api-specification.ts';
import { positionOfToken } from '../support/consistency-tokens.ts';
import { givenOrder, type OrderStep } from '../support/given-orders.ts';
import { anAddress, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

// Each specification is given an order of its own, appended to the log as the command side would have
// written it, then sends one request (or a few, on the same order) and reads the answer and what it appended.

let service: TestService;
let api: ApiSpecification;
let customer: ApiUser;
let staff: ApiUser;
let auditor: ApiUser;

beforeAll(async () => {
  service = await startTestService();
  api = apiSpecification(service);
  [customer, staff, auditor] = await Promise.all([
    api.signIn(['customer']),
    api.signIn(['staff']),
    api.signIn(['auditor']),
  ]);
});
afterAll(async () => {
  await api?.close();
  await service?.stop();
});

/** The customer's order, placed now and moved through these steps by staff. */
const anOrder = (...steps: OrderStep[]) =>
  givenOrder({ customer, by: staff, at: service.clock.now().toISOString() }, ...steps);

const pay = (amount: number, reference: string) => ({ amount: { amount, currency: 'EUR' }, reference });

describe('the order lifecycle over HTTP', () => {
  it.each([
    { before: [], action: 'confirm', status: 'confirmed', event: 'OrderConfirmed' },
    { before: ['confirm'], action: 'ship', status: 'shipped', event: 'OrderShipped' },
    { before: ['confirm', 'ship'], action: 'deliver', status: 'delivered', event: 'OrderDelivered' },
  ] as const)(
    'moves pending -> confirmed -> shipped -> delivered: $action answers the $status order after the command, appending $event',
    async ({ before, action, status, event }) => {
      const order = anOrder(...before);
      await service.clock.advance(60_000);
      const { response, positionBefore } = await api
        .given(order)
        .when(staff.post(`/orders/${order.id}/${action}`))
        .then(
          expectResponse(200, {
            headers: { 'cache-control': 'no-store', 'consistency-token': /^\d+\.[\w-]{22}$/ },
            body: { status, createdAt: order.placedAt, updatedAt: service.clock.now().toISOString() },
          }),
          expectNewEvents(order, [{ type: event, metadata: { actor: { userId: staff.id } } }]),
        );
      expect(positionOfToken(response.headers.get('consistency-token')!)).toBeGreaterThan(positionBefore!);
    },
  );

  it.each([
    { given: [], action: 'ship', currentStatus: 'pending' },
    { given: [], action: 'deliver', currentStatus: 'pending' },
    { given: ['confirm'], action: 'confirm', currentStatus: 'confirmed' },
    { given: ['confirm', 'ship'], action: 'cancel', currentStatus: 'shipped' },
    { given: ['confirm', 'ship', 'deliver'], action: 'cancel', currentStatus: 'delivered' },
    { given: ['cancel'], action: 'confirm', currentStatus: 'cancelled' },
    { given: ['cancel'], action: 'cancel', currentStatus: 'cancelled' },
  ] as const)(
    'refuses to $action a $currentStatus order: 409 invalid-state-transition, nothing appended',
    async ({ given, action, currentStatus }) => {
      const order = anOrder(...given);
      await api
        .given(order)
        .when(staff.post(`/orders/${order.id}/${action}`))
        .then(
          expectProblem(409, {
            type: 'invalid-state-transition',
            currentStatus,
            attemptedAction: action,
            instance: `/orders/${order.id}/${action}`,
          }),
          expectNoNewEvents(),
        );
    },
  );

  it('lets the owner cancel a pending or confirmed order with a reason, and records it', async () => {
    const confirmed = anOrder('confirm');
    await api
      .given(confirmed)
      .when(customer.post(`/orders/${confirmed.id}/cancel`, { reason: 'Found it cheaper' }))
      .then(
        expectResponse(200, { body: { status: 'cancelled', cancellationReason: 'Found it cheaper' } }),
        expectNewEvents(confirmed, [
          { type: 'OrderCancelled', metadata: { actor: { userId: customer.id } } },
        ]),
      );

    const pending = anOrder();
    await api
      .given(pending)
      .when(customer.post(`/orders/${pending.id}/cancel`))
      .then(
        expectResponse(200, { body: { status: 'cancelled', cancellationReason: null } }),
        expectNewEvents(pending, [{ type: 'OrderCancelled', data: { reason: null } }]),
      );
  });

  it("answers 404 to a customer acting on another customer's order, and 403 to a customer confirming", async () => {
    const order = anOrder();
    const stranger = await api.signIn(['customer']);
    const placed = api.given(order);
    await placed
      .when(stranger.post(`/orders/${order.id}/cancel`))
      .then(expectProblem(404, { type: 'not-found' }), expectNoNewEvents());
    await placed
      .when(customer.post(`/orders/${order.id}/confirm`))
      .then(expectProblem(403, { type: 'forbidden' }), expectNoNewEvents());
    await placed
      .when(auditor.post(`/orders/${order.id}/ship`))
      .then(expectProblem(403, { type: 'forbidden' }), expectNoNewEvents());
  });

  it.each([
    ['an unknown order', '/orders/6f1c1d9e-7c43-4a38-9f57-3c4b8f3d2a11/confirm'],
    ['an id that is not a UUID', '/orders/12345/confirm'],
    ['a path that climbs out', '/orders/../../etc/passwd/confirm'],
  ])('answers 404 not-found to %s', async (_what, path) => {
    await api
      .given()
      .when(staff.post(path))
      .then(expectProblem(404, { type: 'not-found' }));
  });

  it('refuses a body on confirm with unknown fields, and an over-long cancellation reason', async () => {
    const order = anOrder();
    const placed = api.given(order);
    await placed
      .when(staff.post(`/orders/${order.id}/confirm`, { status: 'shipped' }))
      .then(
        expectProblem(400, { errors: [{ field: 'status', message: 'unknown field' }] }),
        expectNoNewEvents(),
      );
    await placed
      .when(customer.post(`/orders/${order.id}/cancel`, { reason: 'x'.repeat(501) }))
      .then(expectInvalidFields('reason'), expectNoNewEvents());
  });

  it('ships with the details given: the answer, a later GET and the event carry them, the missing ones null', async () => {
    const order = anOrder('confirm');
    const confirmed = api.given(order);
    const shipment = {
      carrier: 'DHL',
      trackingNumber: null,
      trackingUrl: 'https://www.dhl.example/track?id=JD0001',
      shippedAt: service.clock.now().toISOString(),
    };
    const details = { carrier: 'DHL', trackingNumber: null, trackingUrl: shipment.trackingUrl };
    const shipped = await confirmed
      .when(staff.post(`/orders/${order.id}/ship`, { carrier: 'DHL', trackingUrl: shipment.trackingUrl }))
      .then(
        expectResponse(200),
        expectNewEvents(order, [{ type: 'OrderShipped', data: details, metadata: { schemaVersion: 2 } }]),
      );
    expect(shipped.response.json<OrderBody>().shipment).toEqual(shipment);

    const read = await confirmed
      .when(staff.get(`/orders/${order.id}`))
      .then(expectResponse(200, { headers: { etag: shipped.response.headers.get('etag') } }));
    expect(read.response.json<OrderBody>().shipment).toEqual(shipment);
    await confirmed
      .when(auditor.get(`/orders/${order.id}/events`))
      .then(expectResponse(200), ({ response }) =>
        expect(response.json<unknown[]>().at(-1)).toMatchObject({
          type: 'OrderShipped',
          version: 2,
          data: details,
        }),
      );
  });

  it('refuses ship details that break its rules, every problem at once, and ships nothing', async () => {
    const order = anOrder('confirm');
    const confirmed = api.given(order);
    await confirmed
      .when(
        staff.post(`/orders/${order.id}/ship`, {
          carrier: '',
          trackingNumber: 'x'.repeat(201),
          trackingUrl: 'http://tracking.example/1',
          eta: 'tomorrow',
        }),
      )
      .then(expectInvalidFields('carrier', 'eta', 'trackingNumber', 'trackingUrl'), expectNoNewEvents());
    const read = await confirmed
      .when(staff.get(`/orders/${order.id}`))
      .then(expectResponse(200, { body: { status: 'confirmed' } }));
    expect(read.response.json()).not.toHaveProperty('shipment');
  });

  it('records who acted and the request it came from in every event: placing, then confirming', async () => {
    const address = await customer.post('/users/me/addresses', anAddress).send();
    const placing = await api
      .given()
      .when(
        customer.post(
          '/orders',
          {
            items: [{ productId: '1001', quantity: 1 }],
            shippingAddressId: address.json<{ id: string }>().id,
          },
          { 'X-Request-Id': 'checkout-0815' },
        ),
      )
      .then(expectResponse(201));
    const placed = await api.eventsOf(orderStreamName(placing.response.json<OrderBody>().id));
    expect(placed).toMatchObject([
      {
        type: 'OrderPlaced',
        metadata: { actor: { userId: customer.id, roles: ['customer'] }, correlationId: 'checkout-0815' },
      },
    ]);

    const order = anOrder();
    await api
      .given(order)
      .when(staff.post(`/orders/${order.id}/confirm`, undefined, { 'X-Request-Id': 'support-ticket-4711' }))
      .then(
        expectResponse(200, { headers: { 'x-request-id': 'support-ticket-4711' } }),
        expectNewEvents(order, [
          {
            type: 'OrderConfirmed',
            metadata: { actor: { userId: staff.id, roles: ['staff'] }, correlationId: 'support-ticket-4711' },
          },
        ]),
      );
  });
});

describe('payments', () => {
  it('records a payment (staff), answering the order with the payment', async () => {
    const order = anOrder('confirm');
    const { response } = await api
      .given(order)
      .when(staff.post(`/orders/${order.id}/payments`, pay(39.98, 'PSP-123')))
      .then(
        expectResponse(200),
        expectNewEvents(order, [
          {
            type: 'PaymentReceived',
            data: { amount: { amountMinor: 3998, currency: 'EUR' }, reference: 'PSP-123' },
          },
        ]),
      );
    expect(response.json<OrderBody>().payments).toEqual([
      {
        id: expect.any(String),
        amount: { amount: 39.98, currency: 'EUR' },
        reference: 'PSP-123',
        receivedAt: service.clock.now().toISOString(),
      },
    ]);
  });

  it("refuses another currency, too many decimals, a non-positive amount, and a customer's attempt", async () => {
    const order = anOrder();
    const placed = api.given(order);
    const payments = `/orders/${order.id}/payments`;
    await placed.when(staff.post(payments, { amount: { amount: 10, currency: 'USD' }, reference: 'r' })).then(
      expectProblem(400, {
        type: 'validation-failed',
        errors: [{ field: 'amount.currency', message: "must be the order's currency EUR" }],
      }),
      expectNoNewEvents(),
    );
    await placed
      .when(staff.post(payments, { amount: { amount: 1.234, currency: 'EUR' }, reference: '' }))
      .then(expectInvalidFields('amount.amount', 'reference'), expectNoNewEvents());
    await placed
      .when(staff.post(payments, { amount: { amount: -5, currency: 'XXX' }, reference: 'r' }))
      .then(expectInvalidFields('amount.amount', 'amount.currency'), expectNoNewEvents());
    await placed
      .when(customer.post(payments, pay(1, 'r')))
      .then(expectProblem(403, { type: 'forbidden' }), expectNoNewEvents());
  });

  it('takes no payment on a cancelled order: 409', async () => {
    const order = anOrder('cancel');
    await api
      .given(order)
      .when(staff.post(`/orders/${order.id}/payments`, pay(1, 'late')))
      .then(
        expectProblem(409, {
          detail: 'You cannot record a payment for a cancelled order.',
          currentStatus: 'cancelled',
          attemptedAction: 'record-payment',
        }),
        expectNoNewEvents(),
      );
  });

  it('counts a payment reference once: the same amount again answers the order as it is, appending nothing', async () => {
    const order = anOrder('confirm', { pay: { amountMinor: 1000, reference: 'PSP-once' } });
    const paid = api.given(order);
    await service.clock.advance(60_000);
    const again = await paid.when(staff.post(`/orders/${order.id}/payments`, pay(10, 'PSP-once'))).then(
      expectResponse(200, {
        headers: { 'cache-control': 'no-store' },
        body: { updatedAt: order.placedAt },
      }),
      expectNoNewEvents(),
    );
    expect(again.response.json<OrderBody>().payments).toMatchObject([{ reference: 'PSP-once' }]);
    // Its Consistency-Token works like any other: the read sees the order as it is.
    const read = await paid
      .when(
        staff.get(`/orders/${order.id}`, {
          'Consistency-Token': again.response.headers.get('consistency-token')!,
        }),
      )
      .then(expectResponse(200, { headers: { etag: again.response.headers.get('etag') } }));
    expect(read.response.json()).toEqual(again.response.json());
  });

  it('answers the same reference and amount as the first even once the order is paid in full, or cancelled', async () => {
    const whole = { pay: { amountMinor: 3998, reference: 'PSP-whole' } };
    const paidInFull = anOrder('confirm', whole);
    await api
      .given(paidInFull)
      .when(staff.post(`/orders/${paidInFull.id}/payments`, pay(39.98, 'PSP-whole')))
      .then(
        expectResponse(200, { body: { status: 'confirmed', payments: [pay(39.98, 'PSP-whole')] } }),
        expectNoNewEvents(),
      );
    // Another reference is another payment: the order has nothing outstanding.
    const nothingOwed = anOrder('confirm', whole);
    await api
      .given(nothingOwed)
      .when(staff.post(`/orders/${nothingOwed.id}/payments`, pay(39.98, 'PSP-more')))
      .then(
        expectProblem(400, { errors: [{ field: 'amount.amount', message: 'the order is paid in full' }] }),
        expectNoNewEvents(),
      );

    const cancelled = anOrder({ pay: { amountMinor: 500, reference: 'PSP-before-cancel' } }, 'cancel');
    await api
      .given(cancelled)
      .when(staff.post(`/orders/${cancelled.id}/payments`, pay(5, 'PSP-before-cancel')))
      .then(
        expectResponse(200, { body: { status: 'cancelled', refundDue: { amount: 5, currency: 'EUR' } } }),
        expectNoNewEvents(),
      );
  });

  it('refuses the same reference with another amount: 409 naming the reference and what it recorded', async () => {
    const order = anOrder('confirm', { pay: { amountMinor: 1250, reference: 'PSP-amount' } });
    const { response } = await api
      .given(order)
      .when(staff.post(`/orders/${order.id}/payments`, pay(12.4, 'PSP-amount')))
      .then(
        expectProblem(409, {
          type: 'conflict',
          reference: 'PSP-amount',
          recordedAmount: { amount: 12.5, currency: 'EUR' },
        }),
        expectNoNewEvents(),
      );
    expect(response.json<{ detail: string }>().detail).toContain('PSP-amount');
    expect(response.json<{ detail: string }>().detail).toContain('12.50 EUR');
    // The same reference on another order is that order's payment.
    const elsewhere = anOrder('confirm');
    await api
      .given(elsewhere)
      .when(staff.post(`/orders/${elsewhere.id}/payments`, pay(12.5, 'PSP-amount')))
      .then(expectResponse(200), expectNewEvents(elsewhere, [{ type: 'PaymentReceived' }]));
  });

  it('cancels a paid order, which then shows refundDue: what was paid, in its currency', async () => {
    const order = anOrder(
      'confirm',
      { pay: { amountMinor: 1000, reference: 'PSP-a' } },
      { pay: { amountMinor: 549, reference: 'PSP-b' } },
    );
    const paid = api.given(order);
    const cancelled = await paid
      .when(customer.post(`/orders/${order.id}/cancel`, { reason: 'found it cheaper' }))
      .then(
        expectResponse(200, { body: { status: 'cancelled', refundDue: { amount: 15.49, currency: 'EUR' } } }),
        expectNewEvents(order, [{ type: 'OrderCancelled' }]),
      );
    await paid
      .when(customer.get(`/orders/${order.id}`))
      .then(
        expectResponse(200, { headers: { etag: cancelled.response.headers.get('etag') } }),
        ({ response }) => expect(response.json()).toEqual(cancelled.response.json()),
      );
  });

  it('shows no refundDue on an unpaid cancelled order, nor on a paid order not cancelled', async () => {
    const unpaid = anOrder();
    const placed = api.given(unpaid);
    const cancelled = await placed.when(staff.post(`/orders/${unpaid.id}/cancel`)).then(expectResponse(200));
    expect(cancelled.response.json()).not.toHaveProperty('refundDue');
    const read = await placed
      .when(staff.get(`/orders/${unpaid.id}`))
      .then(expectResponse(200, { body: { status: 'cancelled', cancellationReason: null } }));
    expect(read.response.json()).not.toHaveProperty('refundDue');

    const confirmed = anOrder('confirm');
    const { response } = await api
      .given(confirmed)
      .when(staff.post(`/orders/${confirmed.id}/payments`, pay(1, 'PSP-kept')))
      .then(expectResponse(200, { body: { status: 'confirmed' } }));
    expect(response.json()).not.toHaveProperty('refundDue');
  });

  it.each([
    ['ship', [], 'You cannot ship a pending order.'],
    ['confirm', ['confirm', 'ship'], 'You cannot confirm a shipped order.'],
    ['cancel', ['confirm', 'ship', 'deliver'], 'You cannot cancel a delivered order.'],
    ['deliver', ['cancel'], 'You cannot deliver a cancelled order.'],
  ] as const)('says in a sentence why it refuses to %s (409)', async (action, before, sentence) => {
    const order = anOrder(...before);
    await api
      .given(order)
      .when(staff.post(`/orders/${order.id}/${action}`))
      .then(expectProblem(409, { detail: sentence }));
  });
});

describe('preconditions on transitions (If-Match, If-Unmodified-Since, If-None-Match)', () => {
  /** The ETag `reader` reads the order with: the representation is its reader's (its `actions`). */
  const etagOf = async (given: ReturnType<ApiSpecification['given']>, orderId: string, reader: ApiUser) =>
    (await given.when(reader.get(`/orders/${orderId}`)).then(expectResponse(200))).response.headers.get(
      'etag',
    )!;

  it('applies the command when the ETag is current, and answers 412 with nothing appended when stale', async () => {
    const order = anOrder();
    const placed = api.given(order);
    const customersEtag = await etagOf(placed, order.id, customer);
    const etag = await etagOf(placed, order.id, staff);
    // The customer's ETag is another representation's (the customer may only cancel): not staff's version.
    expect(customersEtag).not.toBe(etag);
    const transition = (action: string, ifMatch: string) =>
      staff.post(`/orders/${order.id}/${action}`, undefined, { 'If-Match': ifMatch });
    await placed
      .when(transition('confirm', customersEtag))
      .then(expectProblem(412, { type: 'precondition-failed' }), expectNoNewEvents());
    const confirmed = await placed
      .when(transition('confirm', etag))
      .then(expectResponse(200), expectNewEvents(order, [{ type: 'OrderConfirmed' }]));

    await placed
      .when(transition('ship', etag))
      .then(expectProblem(412, { type: 'precondition-failed' }), expectNoNewEvents());
    const current = confirmed.response.headers.get('etag')!;
    await placed
      .when(transition('ship', `W/${current}`))
      .then(expectProblem(412, { type: 'precondition-failed' }), expectNoNewEvents());
    await placed
      .when(transition('ship', `"other", ${current}`))
      .then(expectResponse(200), expectNewEvents(order, [{ type: 'OrderShipped' }]));
    await placed
      .when(transition('deliver', '*'))
      .then(expectResponse(200), expectNewEvents(order, [{ type: 'OrderDelivered' }]));
  });

  it('If-Unmodified-Since, when If-Match is absent: 412 once the order changed after that date', async () => {
    const order = anOrder();
    const placed = api.given(order);
    const placedAt = Date.parse(order.placedAt);
    const before = new Date(placedAt - 2000).toUTCString();
    const after = new Date(placedAt + 2000).toUTCString();
    const transition = (action: string, headers: Record<string, string>) =>
      staff.post(`/orders/${order.id}/${action}`, undefined, headers);
    await placed
      .when(transition('confirm', { 'If-Unmodified-Since': before }))
      .then(expectProblem(412, { type: 'precondition-failed' }), expectNoNewEvents());
    // Ignored when If-Match is present (RFC 9110, 13.2.2), and when it is not a date.
    await placed
      .when(transition('confirm', { 'If-Unmodified-Since': 'yesterday' }))
      .then(expectResponse(200), expectNewEvents(order, [{ type: 'OrderConfirmed' }]));
    await placed
      .when(transition('ship', { 'If-Match': '*', 'If-Unmodified-Since': before }))
      .then(expectResponse(200), expectNewEvents(order, [{ type: 'OrderShipped' }]));
    await placed
      .when(transition('deliver', { 'If-Unmodified-Since': after }))
      .then(expectResponse(200), expectNewEvents(order, [{ type: 'OrderDelivered' }]));
  });

  it('If-None-Match: * on an existing order answers 412; a list with its current ETag too', async () => {
    const order = anOrder();
    const placed = api.given(order);
    const etag = await etagOf(placed, order.id, staff);
    const confirm = (ifNoneMatch: string) =>
      staff.post(`/orders/${order.id}/confirm`, undefined, { 'If-None-Match': ifNoneMatch });
    await placed
      .when(confirm('*'))
      .then(expectProblem(412, { type: 'precondition-failed' }), expectNoNewEvents());
    for (const listed of [etag, `"other", ${etag}`]) {
      await placed
        .when(confirm(listed))
        .then(expectProblem(412, { type: 'precondition-failed' }), expectNoNewEvents());
    }
    await placed
      .when(confirm('"other"'))
      .then(expectResponse(200), expectNewEvents(order, [{ type: 'OrderConfirmed' }]));
  });

  it('answers 404, not 412, for an order that does not exist', async () => {
    await api
      .given()
      .when(
        staff.post('/orders/6f1c1d9e-7c43-4a38-9f57-3c4b8f3d2a11/confirm', undefined, {
          'If-Match': '"abc"',
        }),
      )
      .then(expectProblem(404, { type: 'not-found' }));
  });
});
