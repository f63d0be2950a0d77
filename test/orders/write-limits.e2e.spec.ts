import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventLog } from '../../infrastructure/event-store/open-event-log.ts';
import { postJson, problemOf } from '../support/http.ts';
import { anAddress, orderActor, type OrderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

// Small limits, so that a test reaches them in a few requests; the defaults are 60 orders, 30 addresses and
// 30 sessions a minute for a customer, ten times that for staff and admins.
const limits = {
  USER_WRITE_LIMIT_ORDERS: '3',
  USER_WRITE_LIMIT_ADDRESSES: '2',
  USER_WRITE_LIMIT_SESSIONS: '3',
  STAFF_WRITE_LIMIT_ORDERS: '5',
  STAFF_WRITE_LIMIT_ADDRESSES: '4',
  STAFF_WRITE_LIMIT_SESSIONS: '6',
  WRITE_LIMIT_WINDOW_SECONDS: '60',
  // Every request of this file comes from one address: its sign-ins are not what is measured here.
  AUTH_RATE_LIMIT_PER_ADDRESS: '1000',
};

let service: TestService;
beforeAll(async () => {
  service = await startTestService(limits);
});
afterAll(() => service.stop());

const expectWriteLimited = async (response: Response, what: RegExp) => {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  const problem = await problemOf(response);
  expect(problem).toMatchObject({ type: 'https://orders.example/problems/rate-limited', status: 429 });
  expect(problem.detail).toMatch(what);
};

const headOfLog = async () => {
  const log = await openEventLog(service.eventLog, 'test');
  try {
    return await log.headPosition();
  } finally {
    await log.close();
  }
};

/** An order at the actor's one stored address (placing orders stores no address here). */
const order = (actor: OrderActor, shippingAddressId: string) =>
  actor.post('/orders', { items: [{ productId: '1001', quantity: 1 }], shippingAddressId });

describe('per-user limits on writes', () => {
  it('counts orders placed, not requests: refused bodies and answers replayed for an Idempotency-Key use up nothing', async () => {
    const cem = await orderActor(service, ['customer']);
    const address = await cem.addAddress();
    for (let attempt = 0; attempt < 5; attempt++) {
      const refused = await cem.post('/orders', { items: [], shippingAddressId: address });
      expect(refused.status).toBe(400);
    }
    const key = { 'Idempotency-Key': 'limits-replayed-1' };
    const first = await cem.post(
      '/orders',
      { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: address },
      key,
    );
    expect(first.status).toBe(201);
    for (let retry = 0; retry < 5; retry++) {
      const replayed = await cem.post(
        '/orders',
        { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: address },
        key,
      );
      expect(replayed.status).toBe(201);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    }
    // The limit is 3 orders placed: two more are placed, the third is refused.
    for (let placed = 2; placed <= 3; placed++) expect((await order(cem, address)).status).toBe(201);
    await expectWriteLimited(await order(cem, address), /orders placed/);
  });

  it('orders: one customer past its limit gets 429 with Retry-After, and nothing is appended; another customer is not affected', async () => {
    const ann = await orderActor(service, ['customer']);
    const bob = await orderActor(service, ['customer']);
    const annAddress = await ann.addAddress();
    const bobAddress = await bob.addAddress();
    for (let placed = 1; placed <= 3; placed++) expect((await order(ann, annAddress)).status).toBe(201);

    const head = await headOfLog();
    await expectWriteLimited(await order(ann, annAddress), /orders placed/);
    await expectWriteLimited(
      await ann.post(
        '/orders',
        { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: annAddress },
        { 'Idempotency-Key': 'a-retry-of-a-refused-order' },
      ),
      /orders placed/,
    );
    expect(await headOfLog()).toBe(head);

    expect((await order(bob, bobAddress)).status).toBe(201);
  });

  it("staff have their own, higher limit, counted apart from customers'", async () => {
    const staff = await orderActor(service, ['staff']);
    const customer = await orderActor(service, ['customer']);
    const staffAddress = await staff.addAddress();
    const customerAddress = await customer.addAddress();
    for (let placed = 1; placed <= 3; placed++) {
      expect((await order(customer, customerAddress)).status).toBe(201);
    }
    await expectWriteLimited(await order(customer, customerAddress), /at most 3 in 60 s/);
    // Past the customers' 3: staff place 5.
    for (let placed = 1; placed <= 5; placed++) expect((await order(staff, staffAddress)).status).toBe(201);
    await expectWriteLimited(await order(staff, staffAddress), /at most 5 in 60 s/);
  });

  it('addresses stored: the one past the limit is refused and not stored; another customer is not affected', async () => {
    const ann = await orderActor(service, ['customer']);
    const stored = [await ann.addAddress(), await ann.addAddress()];
    await expectWriteLimited(
      await postJson(`${service.url}/users/me/addresses`, anAddress, ann.auth),
      /addresses/,
    );
    expect((await service.users.listAddresses(ann.id)).map((address) => address.id).sort()).toEqual(
      stored.sort(),
    );
    const bob = await orderActor(service, ['customer']);
    expect((await postJson(`${service.url}/users/me/addresses`, anAddress, bob.auth)).status).toBe(201);
  });

  it('sessions opened: a customer signs in three times a window, then waits; other users do not', async () => {
    const ann = await service.addUser(['customer']);
    const bob = await service.addUser(['customer']);
    const signIn = (user: { email: string; password: string }) =>
      postJson(`${service.url}/auth/token`, {
        grant_type: 'password',
        username: user.email,
        password: user.password,
      });
    for (let session = 1; session <= 3; session++) expect((await signIn(ann)).status).toBe(200);
    await expectWriteLimited(await signIn(ann), /sessions opened/);
    expect((await signIn(bob)).status).toBe(200);
    // A wrong password is no session: it answers 401 as ever.
    expect(
      (
        await postJson(`${service.url}/auth/token`, {
          grant_type: 'password',
          username: ann.email,
          password: 'wrong',
        })
      ).status,
    ).toBe(401);
    const admin = await service.addUser(['admin']);
    for (let session = 1; session <= 6; session++) expect((await signIn(admin)).status).toBe(200);
    await expectWriteLimited(await signIn(admin), /sessions opened/);
  });
});
