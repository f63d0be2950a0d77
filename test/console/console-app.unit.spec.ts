import { describe, expect, it } from 'vitest';
import { orderEvents } from '../../domain/orders/order-events.ts';
import { orderStatuses } from '../../domain/orders/order.ts';
import { subscriptionEvents } from '../../domain/webhook-subscriptions/subscription-events.ts';
import { permissions } from '../../domain/identity/permissions.ts';
import { testEventTypes, webhookEventKinds } from '../../domain/webhook-subscriptions/subscription.ts';
import { createServiceDocument } from '../../openapi/service-document.ts';
import { consolePermissions, may } from '../../query-api/console/app/lib/permissions.js';
import { changedPaths, containsErased, diffStates } from '../../query-api/console/app/lib/state-diff.js';
import {
  parsePrometheusText,
  requestsByRoute,
  singleValue,
  valuesByLabel,
} from '../../query-api/console/app/lib/prometheus.js';
import { bucketAttempts, integerTicks } from '../../query-api/console/app/lib/buckets.js';
import { eventInWords, outcomeInWords } from '../../query-api/console/app/lib/sentences.js';
import { problemInWords } from '../../query-api/console/app/lib/problems.js';
import {
  deliveryOutcomes,
  eventTypes,
  webhookEventKinds as consoleWebhookEventKinds,
  testEventTypes as consoleTestEventTypes,
  orderStatuses as consoleStatuses,
} from '../../query-api/console/app/lib/vocabulary.js';
import { rewriteVendorModule } from '../../query-api/console/console-assets.ts';

// The console's pure modules, run in Node as they run in the browser (no DOM needed).

describe('the console keeps to the service', () => {
  it('shows an action only to the roles the permission table lets do it, with the same reach', () => {
    for (const [operation, grants] of Object.entries(consolePermissions)) {
      expect(grants, operation).toEqual(permissions[operation as keyof typeof permissions]);
    }
    const customer = { id: 'c1', roles: ['customer'] };
    expect(may(customer, 'cancelOrder', 'c1')).toBe(true);
    expect(may(customer, 'cancelOrder', 'c2')).toBe(false);
    expect(may(customer, 'confirmOrder', 'c1')).toBe(false);
    expect(may({ id: 'a', roles: ['auditor'] }, 'listAuditEvents')).toBe(true);
    expect(may({ id: 'a', roles: ['auditor'] }, 'recordPayment', 'c1')).toBe(false);
  });

  it('lists the statuses, event types and delivery outcomes the service has', () => {
    expect(consoleStatuses).toEqual([...orderStatuses]);
    expect(eventTypes).toEqual([...Object.keys(orderEvents), ...Object.keys(subscriptionEvents)]);
    const document = JSON.stringify(
      createServiceDocument({
        baseUrl: 'https://orders.example',
        docsUrl: 'https://orders.example/docs',
        errorTypeBase: 'https://orders.example/problems',
        realm: 'order-service',
      }),
    );
    const outcomeEnum = /"outcome":\{"type":"string","enum":(\[[^\]]*\])/.exec(document)?.[1];
    expect(JSON.parse(outcomeEnum ?? '[]')).toEqual(deliveryOutcomes);
    expect(consoleWebhookEventKinds).toEqual([...webhookEventKinds]);
    expect(consoleTestEventTypes).toEqual([...testEventTypes]);
  });
});

describe('what changed between two states', () => {
  const placed = {
    status: 'pending',
    payments: [] as unknown[],
    shippingAddress: { city: 'Lyon', street: '1 Main St' },
    updatedAt: 't0',
  };

  it('names each changed leaf by its path, and a new array element whole', () => {
    const paid = {
      ...placed,
      payments: [{ id: 'p1', amount: { amount: 5, currency: 'EUR' } }],
      updatedAt: 't1',
    };
    expect(diffStates(placed, paid)).toEqual([
      { path: 'payments[0]', kind: 'added', after: { id: 'p1', amount: { amount: 5, currency: 'EUR' } } },
      { path: 'updatedAt', kind: 'changed', before: 't0', after: 't1' },
    ]);
    const confirmed = {
      ...placed,
      status: 'confirmed',
      shippingAddress: { city: 'Paris', street: '1 Main St' },
    };
    const changes = diffStates(placed, confirmed);
    expect(changes.map(({ path }) => path)).toEqual(['status', 'shippingAddress.city']);
    expect([...changedPaths(changes)].sort()).toEqual(['shippingAddress', 'shippingAddress.city', 'status']);
    expect(diffStates(placed, structuredClone(placed))).toEqual([]);
  });

  it('tells removed members and changed types apart, and finds erased personal data', () => {
    expect(diffStates({ a: 1, b: 2 }, { a: 1 })).toEqual([{ path: 'b', kind: 'removed', before: 2 }]);
    expect(diffStates({ a: null }, { a: { x: 1 } })).toEqual([
      { path: 'a', kind: 'changed', before: null, after: { x: 1 } },
    ]);
    expect(containsErased({ shippingAddress: { street: '[erased]' } })).toBe(true);
    expect(containsErased({ items: [{ name: 'erased' }] })).toBe(false);
  });
});

describe('the Prometheus text of GET /metrics', () => {
  const text = [
    '# HELP http_request_duration_seconds Time ...',
    '# TYPE http_request_duration_seconds histogram',
    'http_request_duration_seconds_bucket{le="0.1",method="GET",route="/orders/:orderId",status="200"} 3',
    'http_request_duration_seconds_sum{method="GET",route="/orders/:orderId",status="200"} 0.03',
    'http_request_duration_seconds_count{method="GET",route="/orders/:orderId",status="200"} 3',
    'http_request_duration_seconds_sum{method="GET",route="/orders/:orderId",status="404"} 0.01',
    'http_request_duration_seconds_count{method="GET",route="/orders/:orderId",status="404"} 2',
    'http_request_duration_seconds_sum{method="POST",route="/orders",status="503"} 0.5',
    'http_request_duration_seconds_count{method="POST",route="/orders",status="503"} 1',
    'projection_lag_events{projection="orders"} 0',
    'projection_lag_events{projection="webhook-subscriptions"} NaN',
    'kafka_relay_lag_events 4',
    'webhook_deliveries_total{outcome="dead-lettered"} 1',
    'odd_metric{label="with \\"quotes\\", a comma\\nand a newline"} +Inf 1700000000000',
  ].join('\n');
  const samples = parsePrometheusText(text);

  it('reads requests and errors per route', () => {
    expect(requestsByRoute(samples)).toEqual([
      {
        method: 'GET',
        route: '/orders/:orderId',
        requests: 5,
        clientErrors: 2,
        serverErrors: 0,
        seconds: 0.04,
      },
      { method: 'POST', route: '/orders', requests: 1, clientErrors: 0, serverErrors: 1, seconds: 0.5 },
    ]);
  });

  it('reads gauges and counters by label, unknown values and escaped labels', () => {
    const lags = valuesByLabel(samples, 'projection_lag_events', 'projection');
    expect(lags['orders']).toBe(0);
    expect(lags['webhook-subscriptions']).toBeNaN();
    expect(singleValue(samples, 'kafka_relay_lag_events')).toBe(4);
    expect(singleValue(samples, 'no_such_metric')).toBeNull();
    expect(valuesByLabel(samples, 'webhook_deliveries_total', 'outcome')).toEqual({ 'dead-lettered': 1 });
    expect(samples.at(-1)).toEqual({
      name: 'odd_metric',
      labels: { label: 'with "quotes", a comma\nand a newline' },
      value: Infinity,
    });
  });
});

describe('the outcome chart', () => {
  it('counts attempts by outcome in round spans of time', () => {
    const at = (seconds: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, seconds)).toISOString();
    const { size, buckets } = bucketAttempts([
      { attemptedAt: at(1), outcome: 'failed', deadLettered: false },
      { attemptedAt: at(2), outcome: 'failed', deadLettered: true },
      { attemptedAt: at(40), outcome: 'delivered', deadLettered: false },
    ]);
    expect(size).toBe(5000);
    expect(buckets).toHaveLength(9);
    expect(buckets[0]).toMatchObject({ counts: { failed: 2 }, deadLettered: 1 });
    expect(buckets[8]).toMatchObject({ counts: { delivered: 1 }, deadLettered: 0 });
    expect(bucketAttempts([]).buckets).toEqual([]);
  });
});

describe('problems in words', () => {
  it('gives the API’s own sentence for a forbidden move, and what a stale If-Match means', () => {
    const conflict = problemInWords(409, {
      detail: 'You cannot ship a pending order.',
      currentStatus: 'pending',
      attemptedAction: 'ship',
    });
    expect(conflict).toMatchObject({
      title: 'Not possible while the order is pending',
      detail: 'You cannot ship a pending order.',
    });
    expect(problemInWords(412, { detail: 'The order changed since ...' }).detail).toMatch(
      /changed since you opened it/,
    );
    expect(problemInWords(400, { errors: [{ field: 'amount', message: 'must be positive' }] }).hints).toEqual(
      ['amount: must be positive'],
    );
    // A refusal by the order's rules, whose detail restates its field errors: said once, in the form's words.
    const overpaid = problemInWords(400, {
      detail: 'amount.amount: must be at most what is outstanding: 12.00 EUR',
      errors: [{ field: 'amount.amount', message: 'must be at most what is outstanding: 12.00 EUR' }],
    });
    expect(overpaid).toEqual({
      title: 'The request was refused',
      detail: 'Something in it is not valid.',
      hints: ['Amount: must be at most what is outstanding: 12.00 EUR'],
    });
  });
});

describe('the vendor modules served to the browser', () => {
  it('points package-name imports at the served files, drops the source map comment, and refuses any left', () => {
    const hooks =
      'import{options as n}from"preact";var t;export{t as useState};\n//# sourceMappingURL=hooks.mjs.map';
    expect(rewriteVendorModule(hooks, { preact: './preact.js' })).toBe(
      'import{options as n}from"./preact.js";var t;export{t as useState};\n',
    );
    expect(() => rewriteVendorModule(hooks)).toThrow(/imports the package "preact" by name/);
  });
});

describe('the console’s words for events and outcomes (lib/sentences.js)', () => {
  it('says each event in a sentence, money in its currency rather than in minor units', () => {
    expect(
      eventInWords({
        type: 'PaymentReceived',
        data: { amount: { amountMinor: 4995, currency: 'EUR' }, reference: 'bank-42' },
      }),
    ).toBe('Payment of €49.95 received (reference bank-42).');
    expect(
      eventInWords({
        type: 'OrderPlaced',
        data: { items: [{ quantity: 2 }, { quantity: 1 }], total: { amountMinor: 1000, currency: 'JPY' } },
      }),
    ).toBe('Order placed: 3 items, total ¥1,000.');
    expect(eventInWords({ type: 'OrderShipped', data: {} })).toBe('Order shipped.');
    expect(eventInWords({ type: 'OrderCancelled', data: { reason: null } })).toBe(
      'Order cancelled, no reason given.',
    );
    expect(eventInWords({ type: 'SomethingNew', data: {} })).toBe('SomethingNew.');
    // A reason that is a sentence of its own ends the sentence once.
    expect(
      eventInWords({
        type: 'WebhookSubscriptionDisabled',
        data: { reason: 'The receiver answered 410 Gone.' },
      }),
    ).toBe('Webhook subscription disabled: The receiver answered 410 Gone.');
  });

  it('has a sentence for every event type the console lists', () => {
    for (const type of eventTypes) expect(eventInWords({ type, data: {} }), type).not.toBe(`${type}.`);
  });

  it('says a delivery’s outcome in the same word on Health (metric labels) as on the webhook pages', () => {
    expect(outcomeInWords('succeeded')).toBe('delivered');
    for (const outcome of deliveryOutcomes) expect(outcomeInWords(outcome)).toBe(outcome);
  });

  it('numbers a chart’s axis in whole steps, none twice, the last at or above the highest count', () => {
    for (const most of [0, 1, 2, 3, 7, 11, 24, 99, 101, 1234]) {
      const ticks = integerTicks(most);
      expect(new Set(ticks).size, String(most)).toBe(ticks.length);
      expect(ticks.every(Number.isInteger)).toBe(true);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(most);
      expect(ticks.length).toBeLessThanOrEqual(7);
    }
  });
});
