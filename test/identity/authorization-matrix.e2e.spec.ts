import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, type Operation } from '../../domain/identity/permissions.ts';
import { roles, type Role } from '../../domain/identity/roles.ts';
import { anAddress, orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { webhookAdmin } from '../support/webhooks.ts';
import { consistencyTokenFor, positionOfToken } from '../support/consistency-tokens.ts';

/**
 * Every non-empty set of the four roles, for every operation that needs a token, on the caller's own
 * resource and on another customer's: the status the service answers over HTTP.
 *
 * The operations come from the permission table (domain/identity/permissions.ts), so that an operation added to it
 * without an expectation here fails. The expectations do not: they are written below from the roles as the
 * product defines them (a customer orders and manages its own; staff does everything a customer may, on all
 * orders, and moves orders along and records payments; an auditor reads every order, its history and the
 * log; an admin may do everything staff may, and manages webhooks), as plain statements about role sets.
 */
type Whose = 'own' | 'another customer’s';
type Held = { customer: boolean; staff: boolean; auditor: boolean; admin: boolean };

const expectations: Record<Operation, (held: Held, whose: Whose) => number> = (() => {
  const staffLike = (h: Held) => h.staff || h.admin;
  const shopper = (h: Held) => h.customer || staffLike(h);
  const readsEveryOrder = (h: Held) => staffLike(h) || h.auditor;
  /** Reading an order: every order for staff, auditors, admins; a customer only its own, the rest 404. */
  const readOrder = (h: Held, whose: Whose) =>
    readsEveryOrder(h) || (h.customer && whose === 'own') ? 200 : h.customer ? 404 : 403;
  const staffMove = (h: Held) => (staffLike(h) ? 200 : 403);
  const admin = (status: number) => (h: Held) => (h.admin ? status : 403);
  return {
    placeOrder: (h) => (shopper(h) ? 201 : 403),
    listOrders: () => 200,
    getOrder: readOrder,
    getOrderAtRevision: (h) => (readsEveryOrder(h) ? 200 : 403),
    getOrderEvents: readOrder,
    confirmOrder: staffMove,
    shipOrder: staffMove,
    deliverOrder: staffMove,
    // Another customer's order is hidden from a customer (404); one who may read it anyway is refused (403).
    cancelOrder: (h, whose) =>
      staffLike(h) || (h.customer && whose === 'own') ? 200 : h.customer && !h.auditor ? 404 : 403,
    recordPayment: staffMove,
    listAuditEvents: (h) => (h.auditor || h.admin ? 200 : 403),
    getCurrentUser: () => 200,
    // Sessions too: another's session id is not one of yours.
    listSessions: () => 200,
    endSession: (_h, whose) => (whose === 'own' ? 204 : 404),
    endAllSessions: () => 204,
    // Addresses are reached through /users/me only: another's address id is simply not one of yours.
    listAddresses: (h) => (shopper(h) ? 200 : 403),
    getAddress: (h, whose) => (shopper(h) ? (whose === 'own' ? 200 : 404) : 403),
    addAddress: (h) => (shopper(h) ? 201 : 403),
    removeAddress: (h, whose) => (shopper(h) ? (whose === 'own' ? 204 : 404) : 403),
    registerWebhook: admin(201),
    listWebhooks: admin(200),
    getWebhook: admin(200),
    changeWebhook: admin(200),
    removeWebhook: admin(204),
    rotateWebhookSecret: admin(200),
    testWebhook: admin(202),
    listWebhookDeliveries: admin(200),
    listPendingWebhookDeliveries: admin(200),
    // No delivery has this id: an admin is told so, anyone else is refused first.
    retryWebhookDelivery: admin(404),
    // Erasing a user's personal data: admins only.
    eraseUser: admin(204),
  };
})();

const roleSets: Role[][] = Array.from({ length: 2 ** roles.length - 1 }, (_, index) =>
  roles.filter((_role, bit) => (index + 1) & (1 << bit)),
);

/** Operations whose resource has no owner among customers: tried once, as "own". */
const unowned: ReadonlySet<Operation> = new Set<Operation>([
  'placeOrder',
  'listAuditEvents',
  'getCurrentUser',
  'listSessions',
  'endAllSessions',
  'listAddresses',
  'addAddress',
  'registerWebhook',
  'listWebhooks',
  'getWebhook',
  'changeWebhook',
  'removeWebhook',
  'rotateWebhookSecret',
  'testWebhook',
  'listWebhookDeliveries',
  'listPendingWebhookDeliveries',
  'retryWebhookDelivery',
  'eraseUser',
]);

describe('the authorization matrix: every role set x every operation x own and another’s resource', () => {
  let service: TestService;
  let staff: OrderActor;
  let another: OrderActor;
  let admin: Awaited<ReturnType<typeof webhookAdmin>>;
  let subscriptionId: string;

  beforeAll(async () => {
    service = await startTestService({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // Thirty-odd sign-ins from one address in a minute: more than the default limit.
      AUTH_RATE_LIMIT_PER_ADDRESS: '1000',
      AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS: '1000',
      // One customer places an order for nearly every operation of every role set: more than a shopper does.
      USER_WRITE_LIMIT_ORDERS: '100000',
      USER_WRITE_LIMIT_ADDRESSES: '100000',
      USER_WRITE_LIMIT_SESSIONS: '100000',
    });
    staff = await orderActor(service, ['staff']);
    another = await orderActor(service, ['customer']);
    admin = await webhookAdmin(service);
    // Never delivered to (the port is closed): the subscription only has to exist.
    subscriptionId = (await admin.register('http://127.0.0.1:9/hooks', ['order.created'])).id;
  });
  afterAll(() => service.stop());

  it('covers exactly the operations of the permission table', () => {
    expect(Object.keys(expectations).sort()).toEqual([...operations].sort());
  });

  const addresses = new Map<string, Promise<string>>();
  /** An order of `owner` moved by staff to `status`; its id and the token to read it consistently. */
  const orderIn = async (owner: OrderActor, status: 'pending' | 'confirmed' | 'shipped') => {
    if (!addresses.has(owner.id)) addresses.set(owner.id, owner.addAddress());
    const placed = await owner.post('/orders', {
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: await addresses.get(owner.id),
    });
    expect(placed.status).toBe(201);
    const order = (await placed.json()) as OrderBody;
    let consistencyToken = placed.headers.get('consistency-token')!;
    const steps = { pending: [], confirmed: ['confirm'], shipped: ['confirm', 'ship'] }[status];
    for (const step of steps) {
      const moved = await staff.post(`/orders/${order.id}/${step}`, {});
      expect(moved.status).toBe(200);
      consistencyToken = moved.headers.get('consistency-token')!;
    }
    return { id: order.id, consistencyToken };
  };

  for (const held of roleSets) {
    it(`roles ${held.join(' + ')}`, async () => {
      const has = Object.fromEntries(roles.map((role) => [role, held.includes(role)])) as Held;
      // The user first shops as a customer (so that it has orders and an address of its own), then holds
      // exactly `held`, and signs in again: its token carries `held` and nothing else.
      const user = await orderActor(service, [...new Set<Role>([...held, 'customer'])]);
      const own = {
        pending: await orderIn(user, 'pending'),
        forCancel: await orderIn(user, 'pending'),
        forPayment: await orderIn(user, 'pending'),
        confirmed: await orderIn(user, 'confirmed'),
        shipped: await orderIn(user, 'shipped'),
        addressId: await user.addAddress(),
      };
      const others = {
        pending: await orderIn(another, 'pending'),
        forCancel: await orderIn(another, 'pending'),
        forPayment: await orderIn(another, 'pending'),
        confirmed: await orderIn(another, 'confirmed'),
        shipped: await orderIn(another, 'shipped'),
        addressId: await another.addAddress(),
      };
      await service.users.setRoles(user.id, held);
      const tokens = await service.login(user);
      const auth = { Authorization: `Bearer ${tokens.access_token}` };
      const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
        fetch(`${service.url}${path}`, {
          method,
          headers: {
            ...auth,
            ...headers,
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      // A read waits (bounded) for the read models to reach the writes above; a loaded distributed mode may
      // take longer than that bound (503): the read is asked again, since authorization is what is tested.
      // The writes were the owners' and staff's: their position, as a token of this user's.
      const read = async (path: string, consistencyToken: string) => {
        const token = consistencyTokenFor(service, positionOfToken(consistencyToken), user.id);
        for (let attempt = 1; ; attempt++) {
          const response = await send('GET', path, undefined, { 'Consistency-Token': token });
          if (response.status !== 503 || attempt === 5) return response;
        }
      };

      const probes: Record<Operation, (whose: Whose) => Promise<Response>> = {
        placeOrder: async () =>
          send('POST', '/orders', {
            items: [{ productId: '1001', quantity: 1 }],
            shippingAddressId: own.addressId,
          }),
        listOrders: async (whose) => {
          const response = await read('/orders?perPage=100', others.shipped.consistencyToken);
          if (response.status === 200) {
            const customers = new Set(
              ((await response.clone().json()) as { data: OrderBody[] }).data.map((o) => o.customerId),
            );
            // Own-only readers see only their own orders; readers of every order see another's too.
            const seesOthers = [...customers].some((id) => id !== user.id);
            expect(seesOthers, `${whose}: sees another customer's orders`).toBe(
              has.staff || has.admin || has.auditor,
            );
            expect(customers.has(user.id) || whose !== 'own').toBe(true);
          }
          return response;
        },
        getOrder: async (whose) => {
          const order = whose === 'own' ? own.pending : others.pending;
          return read(`/orders/${order.id}`, order.consistencyToken);
        },
        getOrderAtRevision: async (whose) => {
          const order = whose === 'own' ? own.shipped : others.shipped;
          return read(`/orders/${order.id}?revision=0`, order.consistencyToken);
        },
        getOrderEvents: async (whose) => {
          const order = whose === 'own' ? own.pending : others.pending;
          return read(`/orders/${order.id}/events`, order.consistencyToken);
        },
        confirmOrder: async (whose) =>
          send('POST', `/orders/${(whose === 'own' ? own : others).pending.id}/confirm`, {}),
        shipOrder: async (whose) =>
          send('POST', `/orders/${(whose === 'own' ? own : others).confirmed.id}/ship`, {}),
        deliverOrder: async (whose) =>
          send('POST', `/orders/${(whose === 'own' ? own : others).shipped.id}/deliver`, {}),
        cancelOrder: async (whose) =>
          send('POST', `/orders/${(whose === 'own' ? own : others).forCancel.id}/cancel`, {}),
        recordPayment: async (whose) =>
          send('POST', `/orders/${(whose === 'own' ? own : others).forPayment.id}/payments`, {
            amount: { amount: 1, currency: 'EUR' },
            reference: `matrix-${randomUUID()}`,
          }),
        listAuditEvents: async () => send('GET', '/audit/events?limit=1'),
        getCurrentUser: async () => send('GET', '/users/me'),
        listSessions: async () => send('GET', '/users/me/sessions'),
        endSession: async (whose) => {
          // Another session of the same user (signed in elsewhere), or one of another customer.
          const other = await service.login(whose === 'own' ? user : another);
          const sessions = await fetch(`${service.url}/users/me/sessions`, {
            headers: { Authorization: `Bearer ${other.access_token}` },
          });
          const current = ((await sessions.json()) as { id: string; current: boolean }[]).find(
            (s) => s.current,
          );
          return send('DELETE', `/users/me/sessions/${current!.id}`);
        },
        // Ends the caller's own sessions too: tried last.
        endAllSessions: async () => send('DELETE', '/users/me/sessions'),
        listAddresses: async () => send('GET', '/users/me/addresses'),
        getAddress: async (whose) =>
          send('GET', `/users/me/addresses/${(whose === 'own' ? own : others).addressId}`),
        addAddress: async () => send('POST', '/users/me/addresses', anAddress),
        removeAddress: async (whose) =>
          send('DELETE', `/users/me/addresses/${(whose === 'own' ? own : others).addressId}`),
        registerWebhook: async () =>
          send('POST', '/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['order.created'] }),
        listWebhooks: async () => send('GET', '/webhooks'),
        getWebhook: async () => send('GET', `/webhooks/${subscriptionId}`),
        changeWebhook: async () =>
          send('PATCH', `/webhooks/${subscriptionId}`, { description: `matrix ${held.join('+')}` }),
        removeWebhook: async () => {
          const doomed = await admin.register('http://127.0.0.1:9/doomed', ['order.created']);
          return send('DELETE', `/webhooks/${doomed.id}`);
        },
        rotateWebhookSecret: async () => send('POST', `/webhooks/${subscriptionId}/rotate-secret`, {}),
        testWebhook: async () => send('POST', `/webhooks/${subscriptionId}/test`, {}),
        listWebhookDeliveries: async () => send('GET', `/webhooks/${subscriptionId}/deliveries`),
        listPendingWebhookDeliveries: async () =>
          send('GET', `/webhooks/${subscriptionId}/deliveries/pending`),
        retryWebhookDelivery: async () =>
          send('POST', `/webhooks/${subscriptionId}/deliveries/${randomUUID()}/retry`, {}),
        eraseUser: async () => {
          const doomed = await orderActor(service, ['customer']);
          return send('DELETE', `/users/${doomed.id}`);
        },
      };

      const seen: string[] = [];
      const wanted: string[] = [];
      // Ending all of one's sessions revokes the token this loop uses: last.
      const inOrder = [...operations.filter((op) => op !== 'endAllSessions'), 'endAllSessions' as const];
      for (const operation of inOrder) {
        const cases: Whose[] = unowned.has(operation) ? ['own'] : ['own', 'another customer’s'];
        for (const whose of cases) {
          const response = await probes[operation](whose);
          const status = response.status;
          if (status === 403) {
            expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          }
          seen.push(`${operation} on ${whose}: ${status}`);
          wanted.push(`${operation} on ${whose}: ${expectations[operation](has, whose)}`);
        }
      }
      expect(seen).toEqual(wanted);
    });
  }
});
