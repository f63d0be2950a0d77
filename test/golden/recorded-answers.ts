import { chmodSync, cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { strongEtag } from '../../infrastructure/http/representation.ts';
import { availableActions } from '../../domain/orders/order-actions.ts';
import type { OrderStatus } from '../../domain/orders/order.ts';

// The golden log of test/fixtures/golden-2026-11-25 (see its README.md): the answers the release before
// versioned events gave, and the changes this release makes to them on purpose. Everything else about an
// answer must be the same, byte for byte.

export const fixture = fileURLToPath(new URL('../fixtures/golden-2026-11-25/', import.meta.url));

/** A copy of the fixture's DATA_DIR (the log, the read store as that release built it, its keys). */
export const copyOfFixture = (): string => {
  const dataDir = mkdtempSync(join(tmpdir(), 'golden-log-'));
  chmodSync(dataDir, 0o700);
  for (const name of ['events.sqlite', 'read-store.sqlite', 'keys']) {
    cpSync(join(fixture, name), join(dataDir, name), { recursive: true });
  }
  return dataDir;
};

export type GoldenUser = 'staff' | 'ann' | 'bob' | 'admin' | 'auditor';
export const goldenUsers: GoldenUser[] = ['staff', 'ann', 'bob', 'admin', 'auditor'];
export const goldenCredentials = (user: GoldenUser) => ({
  email: `${user}@golden.example`,
  password: 'golden-password-1',
});

/** One answer as the previous release gave it, and the request it answered. */
export type RecordedAnswer = {
  as: GoldenUser;
  method: string;
  path: string;
  /** The JSON body of a request other than GET (a refusal: it changed nothing). */
  requestBody?: unknown;
  status: number;
  etag: string | null;
  lastModified: string | null;
  body: string;
};

type RecordedFile = { expected: (Omit<RecordedAnswer, 'as' | 'method'> & Partial<RecordedAnswer>)[] };
const recordedIn = (file: string): RecordedAnswer[] =>
  (JSON.parse(readFileSync(join(fixture, file), 'utf8')) as RecordedFile).expected.map((answer) => ({
    // gen.mjs.txt asked everything with GET, as staff.
    as: 'staff',
    method: 'GET',
    ...answer,
  }));

/** Every recorded answer: gen.mjs.txt's (orders, as staff), then record-more.mjs.txt's. */
export const recordedAnswers: RecordedAnswer[] = [
  ...recordedIn('expected.json'),
  ...recordedIn('expected-more.json'),
];

export const goldenOrderIds = (
  JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8')) as { orders: string[] }
).orders;

type RecordedEvent = { type: string; revision: number; data: Record<string, unknown> };

/** When each shipped order of the fixture was shipped, at which revision, as its recorded history says. */
const shipments = new Map(
  recordedAnswers
    .filter((answer) => answer.status === 200 && /^\/orders\/[^/?]+\/events$/.test(answer.path))
    .flatMap((answer) => {
      const shipped = (JSON.parse(answer.body) as RecordedEvent[]).find(
        (event) => event.type === 'OrderShipped',
      );
      return shipped
        ? [[shipped.data['orderId'] as string, { revision: shipped.revision, at: shipped.data['shippedAt'] }]]
        : [];
    }),
);
export const shippedOrderIds = [...shipments.keys()];

type OrderJson = Record<string, unknown> & { id: string };

/**
 * The first deliberate change: an order shipped by then gains `shipment`, with no carrier, tracking number
 * or tracking page (its OrderShipped is version 1) and the time it was shipped. Returns the order without it.
 */
const withoutShipment = (order: OrderJson, revision: number | 'current'): OrderJson => {
  const shipped = shipments.get(order.id);
  if (!shipped || (revision !== 'current' && revision < shipped.revision)) {
    expect(
      order,
      `order ${order.id} at revision ${revision}: not shipped, so no shipment`,
    ).not.toHaveProperty('shipment');
    return order;
  }
  const { shipment, ...rest } = order;
  expect(shipment, `the shipment of order ${order.id} at revision ${revision}`).toEqual({
    carrier: null,
    trackingNumber: null,
    trackingUrl: null,
    shippedAt: shipped.at,
  });
  return rest as OrderJson;
};

/** The second: every event resource gains `version`, 1 for every event the previous release stored. */
const withoutVersion = (event: Record<string, unknown>) => {
  const { version, ...rest } = event;
  expect(version, `the version of event ${String(event['id'])} (${String(event['type'])})`).toBe(1);
  return rest;
};

/**
 * The third: a webhook URL (a registration's, a change's) is shown to auditors as its origin, since a path or
 * a query may be a credential (admins still read it whole). Returns the event with the recorded URL back.
 */
const withWholeUrl = (event: Record<string, unknown>, recorded: Record<string, unknown> | undefined) => {
  const data = event['data'] as Record<string, unknown>;
  const recordedData = recorded?.['data'] as Record<string, unknown> | undefined;
  if (event['type'] === 'WebhookSubscriptionRegistered') {
    const whole = recordedData?.['url'] as string;
    expect(data['url'], `the URL of ${String(event['id'])} as the auditor reads it`).toBe(
      new URL(whole).origin,
    );
    return { ...event, data: { ...data, url: whole } };
  }
  const changes = data['changes'] as Record<string, unknown> | undefined;
  if (event['type'] === 'WebhookSubscriptionChanged' && changes?.['url'] !== undefined) {
    const whole = (recordedData?.['changes'] as Record<string, unknown>)['url'] as string;
    expect(changes['url'], `the URL of ${String(event['id'])} as the auditor reads it`).toBe(
      new URL(whole).origin,
    );
    return { ...event, data: { ...data, changes: { ...changes, url: whole } } };
  }
  return event;
};

/** Each golden user's one role. */
const roleOf: Record<GoldenUser, string> = {
  staff: 'staff',
  ann: 'customer',
  bob: 'customer',
  admin: 'admin',
  auditor: 'auditor',
};

/**
 * The fourth: an order as it is now gains `actions`, what its reader may do to it now (the domain's
 * availableActions for its status, what is outstanding and the reader's role; a customer reads only its own
 * orders); a past revision has none. Returns the order without them.
 */
const withoutActions = (order: OrderJson, revision: number | 'current', as: GoldenUser): OrderJson => {
  if (revision !== 'current') {
    expect(
      order,
      `order ${order.id} at revision ${revision}: a past state, so no actions`,
    ).not.toHaveProperty('actions');
    return order;
  }
  const { actions, ...rest } = order;
  const total = order['total'] as { amount: number };
  const paid = (order['payments'] as { amount: { amount: number } }[]).reduce(
    (sum, payment) => sum + payment.amount.amount,
    0,
  );
  const customerId = order['customerId'] as string;
  const expected = availableActions(
    {
      customerId,
      status: order['status'] as OrderStatus,
      outstandingMinor: Math.round((total.amount - paid) * 100),
    },
    { userId: customerId, roles: [roleOf[as]] },
  );
  expect(actions, `the actions of ${as} on order ${order.id}`).toEqual(expected);
  return rest as OrderJson;
};

/**
 * The fifth: a subscription as admins read it gains `deliveryStats`, over its latest 50 attempts in the
 * delivery log that release kept (issue 44): consistent in itself, and for the one a 410 disabled, gone.
 */
const withoutDeliveryStats = (subscription: Record<string, unknown>) => {
  const { deliveryStats, ...rest } = subscription;
  const stats = deliveryStats as {
    attempts: number;
    delivered: number;
    successRate: number | null;
    lastOutcome: string | null;
    lastAttemptAt: string | null;
  };
  const what = `the delivery stats of subscription ${String(subscription['id'])}`;
  expect(stats.attempts, what).toBeGreaterThan(0);
  expect(stats.attempts, what).toBeLessThanOrEqual(50);
  expect(stats.delivered, what).toBeLessThanOrEqual(stats.attempts);
  expect(stats.successRate, what).toBe(stats.delivered / stats.attempts);
  expect(stats.lastAttemptAt, what).toMatch(/^2026-11-25T/);
  if (subscription['disabledReason'] !== null) expect(stats.lastOutcome, what).toBe('gone');
  return rest;
};

/**
 * The sixth: a listing of orders gains `customers`, the name and e-mail of each customer of its orders,
 * by id, read from the accounts (issue 44). Returns the listing without it.
 */
const withoutCustomers = <P extends { data: OrderJson[] }>(page: P & { customers?: unknown }): P => {
  const { customers, ...rest } = page;
  const named = customers as Record<string, { name: string; email: string }>;
  const ids = [...new Set(page.data.map((order) => order['customerId'] as string))].sort();
  expect(Object.keys(named).sort(), 'the customers a listing names').toEqual(ids);
  for (const [id, customer] of Object.entries(named)) {
    expect(customer.name, `the name of customer ${id}`).toMatch(/\S/);
    expect(customer.email, `the e-mail of customer ${id}`).toMatch(/^[^@\s]+@[^@\s]+$/);
  }
  return rest as unknown as P;
};

/**
 * An answer of this release with the deliberate changes checked and taken out again: what remains must be
 * the recorded bytes. Key order survives, so re-serialising gives the bytes the service would have sent.
 */
const withoutDeliberateChanges = (recorded: RecordedAnswer, body: string): string => {
  const { pathname, searchParams } = new URL(recorded.path, 'http://golden.example');
  const json = JSON.parse(body) as unknown;
  if (/^\/orders\/[^/]+\/events$/.test(pathname)) {
    return JSON.stringify((json as Record<string, unknown>[]).map(withoutVersion));
  }
  if (pathname === '/audit/events') {
    const page = json as { data: Record<string, unknown>[] };
    const recordedEvents = (JSON.parse(recorded.body) as { data: Record<string, unknown>[] }).data;
    const data = page.data.map(withoutVersion);
    return JSON.stringify({
      ...page,
      data:
        recorded.as === 'admin'
          ? data
          : data.map((event, index) => withWholeUrl(event, recordedEvents[index])),
    });
  }
  if (/^\/orders\/[^/]+$/.test(pathname)) {
    const revision = searchParams.get('revision');
    const at = revision === null ? 'current' : Number(revision);
    return JSON.stringify(withoutShipment(withoutActions(json as OrderJson, at, recorded.as), at));
  }
  if (pathname === '/webhooks') {
    return JSON.stringify((json as Record<string, unknown>[]).map(withoutDeliveryStats));
  }
  if (/^\/webhooks\/[^/]+$/.test(pathname)) {
    return JSON.stringify(withoutDeliveryStats(json as Record<string, unknown>));
  }
  if (pathname === '/orders') {
    const page = withoutCustomers(json as { data: OrderJson[] });
    return JSON.stringify({
      ...page,
      data: page.data.map((order) =>
        withoutShipment(withoutActions(order, 'current', recorded.as), 'current'),
      ),
    });
  }
  return body;
};

export type Answer = Pick<RecordedAnswer, 'status' | 'etag' | 'lastModified' | 'body'>;

/**
 * The recorded answer, as this release must give it: the same status and Last-Modified; the same bytes but
 * for the deliberate changes (`shipment`, `version`, a webhook URL's origin for auditors, `actions`,
 * `deliveryStats`, a listing's `customers`); an order's ETag from its sealed form; any other the same ETag when the bytes are the same, and the
 * hash of the new bytes, the same function as before, when they are not.
 */
export const expectRecordedAnswer = (recorded: RecordedAnswer, answer: Answer) => {
  const what = `${recorded.method} ${recorded.path} as ${recorded.as}`;
  expect(answer.status, `${what}: status`).toBe(recorded.status);
  expect(answer.lastModified, `${what}: Last-Modified`).toBe(recorded.lastModified);
  if (recorded.status !== 200) {
    expect(answer.body, `${what}: body`).toBe(recorded.body);
    expect(answer.etag, `${what}: ETag`).toBe(recorded.etag);
    return;
  }
  expect(withoutDeliberateChanges(recorded, answer.body), `${what}: body`).toBe(recorded.body);
  if (/^\/orders\/[^/?]+(\?|$)/.test(recorded.path)) {
    // The seventh: an order's ETag is made from its sealed form and its customer's key standing (what a
    // command's If-Match is compared with before anything is opened), no longer from the bytes sent.
    expect(answer.etag, `${what}: ETag`).toMatch(/^"[\w-]{32}"$/);
    expect(answer.etag, `${what}: ETag`).not.toBe(strongEtag(Buffer.from(answer.body)));
    return;
  }
  if (recorded.etag === null || answer.body === recorded.body) {
    expect(answer.etag, `${what}: ETag`).toBe(recorded.etag);
    return;
  }
  // The recorded ETag is the hash of the recorded bytes, and the new one that of the new bytes.
  expect(strongEtag(Buffer.from(recorded.body)), `${what}: the recorded ETag`).toBe(recorded.etag);
  expect(answer.etag, `${what}: ETag`).toBe(strongEtag(Buffer.from(answer.body)));
};
