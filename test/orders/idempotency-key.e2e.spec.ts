import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../command-api/idempotency/idempotent.ts';
import { orderStreamName } from '../../domain/orders/order.ts';
import { openEventLog } from '../../infrastructure/event-store/open-event-log.ts';
import { problemOf } from '../support/http.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let customer: OrderActor;
let staff: OrderActor;
let addressId: string;

beforeAll(async () => {
  service = await startTestService();
  customer = await orderActor(service, ['customer']);
  staff = await orderActor(service, ['staff']);
  addressId = await customer.addAddress();
});
afterAll(async () => service.stop());

/** How many orders the customer has once the read models reached the answer's position in the log. */
const orderCountAfter = async (answer: Response) => {
  const token = { 'Consistency-Token': answer.headers.get('consistency-token')! };
  const listing = await customer.get('/orders?perPage=1', token);
  return ((await listing.json()) as { meta: { total: number } }).meta.total;
};

/**
 * How many orders the customer has besides one placed now: the read models then include everything the
 * requests before it appended, so an order a refused request had created would count too.
 */
const orderCountBesidesANewOne = async () =>
  (await orderCountAfter(await customer.post('/orders', anOrder()))) - 1;

/** The types of the events of an order's stream, read from the service's log. */
const eventTypesOf = async (orderId: string) => {
  const log = await openEventLog(service.eventLog, 'test');
  try {
    return (await log.readStream(orderStreamName(orderId))).map((event) => event.type);
  } finally {
    await log.close();
  }
};

const anOrder = () => ({ items: [{ productId: '1001', quantity: 1 }], shippingAddressId: addressId });

describe('Idempotency-Key on POST /orders', () => {
  it('replays the first answer to a retry with the same key and body: same status, body, headers; one order', async () => {
    const first = await customer.post('/orders', anOrder(), { 'Idempotency-Key': 'order-attempt-1' });
    expect(first.status).toBe(201);
    const firstBody = await first.text();
    const before = await orderCountAfter(first);

    // The same JSON with its keys in another order is the same request.
    const retry = await customer.post(
      '/orders',
      { shippingAddressId: addressId, items: [{ quantity: 1, productId: '1001' }] },
      { 'Idempotency-Key': 'order-attempt-1' },
    );
    expect(retry.status).toBe(201);
    expect(await retry.text()).toBe(firstBody);
    for (const header of ['location', 'etag', 'consistency-token', 'content-type']) {
      expect(retry.headers.get(header)).toBe(first.headers.get(header));
    }
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('cache-control')).toBe('no-store');
    expect(await orderCountBesidesANewOne()).toBe(before);
  });

  it('answers 422 idempotency-key-mismatch to the same key with another body, creating nothing', async () => {
    const before = await orderCountAfter(
      await customer.post('/orders', anOrder(), { 'Idempotency-Key': 'order-attempt-2' }),
    );
    const other = await customer.post(
      '/orders',
      { ...anOrder(), items: [{ productId: '1001', quantity: 5 }] },
      { 'Idempotency-Key': 'order-attempt-2' },
    );
    expect(other.status).toBe(422);
    expect((await problemOf(other)).type).toBe('https://orders.example/problems/idempotency-key-mismatch');
    expect(await orderCountBesidesANewOne()).toBe(before);
  });

  it('replays a refusal too: a 400 stays a 400 for that key', async () => {
    const bad = { items: [], shippingAddressId: addressId };
    const first = await customer.post('/orders', bad, { 'Idempotency-Key': 'bad-order' });
    const retry = await customer.post('/orders', bad, { 'Idempotency-Key': 'bad-order' });
    expect([first.status, retry.status]).toEqual([400, 400]);
    expect(await retry.text()).toBe(await first.text());
  });

  it('answers 409 while a request with the key is still running, and 422 if that request was another', async () => {
    // The first request holds the key: claimed in the service's own store, as its handler would be mid-way.
    const body = anOrder();
    const store = service.idempotency;
    const now = service.clock.now();
    const times = {
      now,
      expiresAt: new Date(now.getTime() + 86_400_000),
      leaseUntil: new Date(now.getTime() + 60_000),
    };
    await store.claim(
      { userId: customer.id, key: 'running' },
      requestFingerprint('POST', '/orders', body),
      times,
    );
    await store.claim({ userId: customer.id, key: 'running-other' }, 'another-request', times);

    const running = await customer.post('/orders', body, { 'Idempotency-Key': 'running' });
    expect(running.status).toBe(409);
    expect(running.headers.get('retry-after')).toBe('1');
    expect((await problemOf(running)).type).toBe('https://orders.example/problems/conflict');
    const other = await customer.post('/orders', body, { 'Idempotency-Key': 'running-other' });
    expect(other.status).toBe(422);
    expect((await problemOf(other)).type).toBe('https://orders.example/problems/idempotency-key-mismatch');
  });

  it('refuses a key that is empty, too long or not visible ASCII', async () => {
    for (const key of ['', 'x'.repeat(256), 'a b']) {
      const response = await customer.post('/orders', anOrder(), { 'Idempotency-Key': key });
      expect(response.status).toBe(400);
      expect((await problemOf(response)).errors).toEqual([
        { field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }
  });
});

describe('Idempotency-Key on POST /orders/{id}/payments', () => {
  it('records a payment once however often it is retried', async () => {
    const { order } = await customer.placeOrder();
    const payment = { amount: { amount: 19.99, currency: 'EUR' }, reference: 'PSP-9' };
    const responses = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      responses.push(
        await staff.post(`/orders/${order.id}/payments`, payment, { 'Idempotency-Key': 'pay-1' }),
      );
    }
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    const bodies = await Promise.all(responses.map((response) => response.text()));
    expect(new Set(bodies).size).toBe(1);
    const read = await staff.get(`/orders/${order.id}`, {
      'Consistency-Token': responses[0]!.headers.get('consistency-token')!,
    });
    expect(((await read.json()) as { payments: unknown[] }).payments).toHaveLength(1);
  });
});

describe('Idempotency-Key on every transition', () => {
  it('replays the first answer of confirm, ship, deliver and cancel to a retry, where a second try without the key is refused', async () => {
    const { order } = await customer.placeOrder();
    const steps = [
      { path: 'confirm', body: {}, status: 'confirmed' },
      { path: 'ship', body: { carrier: 'DHL' }, status: 'shipped' },
      { path: 'deliver', body: {}, status: 'delivered' },
    ];
    for (const { path, body, status } of steps) {
      const key = { 'Idempotency-Key': `${order.id}-${path}` };
      const first = await staff.post(`/orders/${order.id}/${path}`, body, key);
      const retry = await staff.post(`/orders/${order.id}/${path}`, body, key);
      expect([first.status, retry.status], path).toEqual([200, 200]);
      const answer = (await first.json()) as { status: string; version: number };
      expect(answer.status).toBe(status);
      expect(await retry.json()).toEqual(answer);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      // Without the key the same request is a new one, and the lifecycle refuses it.
      expect((await staff.post(`/orders/${order.id}/${path}`, body)).status).toBe(409);
    }
    const history = await staff.get(`/orders/${order.id}/events`);
    const types = ((await history.json()) as { type: string }[]).map((event) => event.type);
    expect(types).toEqual(['OrderPlaced', 'OrderConfirmed', 'OrderShipped', 'OrderDelivered']);
  });

  it('cancels once for a customer retrying, and refuses the key with another reason (422)', async () => {
    const { order } = await customer.placeOrder();
    const key = { 'Idempotency-Key': `${order.id}-cancel` };
    const first = await customer.post(`/orders/${order.id}/cancel`, { reason: 'changed my mind' }, key);
    const retry = await customer.post(`/orders/${order.id}/cancel`, { reason: 'changed my mind' }, key);
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(await retry.text()).toBe(await first.text());
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const other = await customer.post(`/orders/${order.id}/cancel`, { reason: 'another reason' }, key);
    expect(other.status).toBe(422);
    expect((await problemOf(other)).type).toBe('https://orders.example/problems/idempotency-key-mismatch');
    // Cancelled once: one OrderCancelled in the log for the three requests.
    expect(await eventTypesOf(order.id)).toEqual(['OrderPlaced', 'OrderCancelled']);
  });
});

describe('Idempotency-Key expiry', () => {
  it('scopes keys per user, and frees them after 24 h (last: it moves the clock a day on)', async () => {
    const other = await orderActor(service, ['customer']);
    const theirs = await other.post(
      '/orders',
      { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: await other.addAddress() },
      { 'Idempotency-Key': 'order-attempt-1' },
    );
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();

    const first = await customer.post('/orders', anOrder(), { 'Idempotency-Key': 'daily' });
    await service.clock.advance(24 * 3_600_000);
    // A day later the access token has expired too: sign in again, as a client would.
    const { access_token } = await service.login(customer);
    const nextDay = await fetch(`${service.url}/orders`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${access_token}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'daily',
      },
      body: JSON.stringify(anOrder()),
    });
    expect(nextDay.status).toBe(201);
    expect(nextDay.headers.get('location')).not.toBe(first.headers.get('location'));
  });
});
