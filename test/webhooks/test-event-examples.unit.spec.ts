import { describe, expect, it } from 'vitest';
import {
  testEventTypes,
  webhookEventKinds,
  type TestEventType,
} from '../../domain/webhook-subscriptions/subscription.ts';
import { webhookEvents } from '../../openapi/webhook-events.ts';
import { exampleOrderId, testEventData } from '../../projections/relay/example-events.ts';
import { webhookBody } from '../../webhook-dispatcher/accept-events.ts';

const subscriptionId = '6f1c2a9e-3b4d-4e5f-8a6b-7c8d9e0f1a2b';
const requestedAt = '2026-11-21T10:00:00.000Z';
const testBody = (type: TestEventType) =>
  JSON.parse(webhookBody(type, requestedAt, testEventData(type, subscriptionId), { test: true })) as Record<
    string,
    unknown
  >;

describe('test events of each event type (issue 44)', () => {
  it('can be sent of every type the webhooks section states, and of no other', () => {
    expect([...testEventTypes].sort()).toEqual(webhookEvents.map((event) => event.name).sort());
    expect(testEventTypes).toEqual(expect.arrayContaining([...webhookEventKinds, 'webhook.test']));
  });

  it.each(testEventTypes)(
    '%s: its example, marked as a test, validates against the schema that states the type',
    (type) => {
      const schema = webhookEvents.find((event) => event.name === type)!.body;
      const body = testBody(type);
      const parsed = schema.safeParse(body);
      expect(parsed.error?.issues ?? []).toEqual([]);
      expect(body).toMatchObject({ type, timestamp: requestedAt, test: true });
    },
  );

  it('builds every order example from the one fixed example order, the same on every call', () => {
    for (const kind of webhookEventKinds) {
      const data = testEventData(kind, subscriptionId) as Record<string, unknown>;
      expect(data['orderId'] ?? data['id']).toBe(exampleOrderId);
      expect(testEventData(kind, randomSubscription())).toEqual(data);
    }
    expect(testEventData('order.created', subscriptionId)).toMatchObject({
      customerId: 'example-customer',
      status: 'pending',
    });
    expect(testEventData('order.status_changed', subscriptionId)).toMatchObject({
      from: 'confirmed',
      to: 'shipped',
      order: { shipment: { carrier: 'Example Carrier' } },
    });
    expect(testEventData('webhook.test', subscriptionId)).toMatchObject({ subscriptionId });
  });

  it('leaves the mark off a real event, whose schema holds without it', () => {
    const data = testEventData('order.created', subscriptionId);
    const body = JSON.parse(webhookBody('order.created', requestedAt, data)) as object;
    expect(body).not.toHaveProperty('test');
    expect(webhookEvents.find((event) => event.name === 'order.created')!.body.safeParse(body).success).toBe(
      true,
    );
  });
});

const randomSubscription = () => crypto.randomUUID();
