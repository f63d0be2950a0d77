import { describe, expect, it } from 'vitest';
import { InvariantViolationError } from '../../domain/shared/errors.ts';
import { subscriptionDecider } from '../../domain/webhook-subscriptions/subscription-decider.ts';
import {
  SubscriptionAlreadyExistsError,
  SubscriptionNotFoundError,
} from '../../domain/webhook-subscriptions/subscription-errors.ts';
import type { SubscriptionEvent } from '../../domain/webhook-subscriptions/subscription-events.ts';
import type { RegisterSubscription } from '../../domain/webhook-subscriptions/subscription.ts';
import { subscriptionOf } from '../../webhooks/subscription-view.ts';
import { deciderSpecification } from '../support/decider-specification.ts';

const spec = deciderSpecification(subscriptionDecider);
const subscriptionId = '0b9a2f64-5f55-4c1a-9a53-3c1f0f0e7a11';
const at = (minute: number) => `2026-11-21T10:${String(minute).padStart(2, '0')}:00.000Z`;

const registration: RegisterSubscription['data'] = {
  subscriptionId,
  url: 'https://hooks.shop.example/orders',
  events: ['order.created'],
  description: null,
  secret: 'sealed-1',
  registeredAt: at(0),
};
const registered: SubscriptionEvent = { type: 'WebhookSubscriptionRegistered', data: registration };
const disabling = { subscriptionId, reason: 'the receiver answered 410 Gone', disabledAt: at(3) };
const removed: SubscriptionEvent = {
  type: 'WebhookSubscriptionRemoved',
  data: { subscriptionId, removedAt: at(5) },
};
const disabled: SubscriptionEvent = { type: 'WebhookSubscriptionDisabled', data: disabling };

describe('webhook subscription', () => {
  it('is registered once; registering the same id again is refused', () => {
    spec.given([]).when({ type: 'RegisterSubscription', data: registration }).then([registered]);
    spec
      .given([registered])
      .when({ type: 'RegisterSubscription', data: registration })
      .thenThrows(SubscriptionAlreadyExistsError, { subscriptionId });
  });

  it('needs at least one event kind', () => {
    spec
      .given([])
      .when({ type: 'RegisterSubscription', data: { ...registration, events: [] } })
      .thenThrows(InvariantViolationError);
    spec
      .given([registered])
      .when({
        type: 'ChangeSubscription',
        data: { subscriptionId, changes: { events: [] }, changedAt: at(1) },
      })
      .thenThrows(InvariantViolationError);
  });

  it('records only the fields a change really changes, and nothing for a change to the same values', () => {
    spec
      .given([registered])
      .when({
        type: 'ChangeSubscription',
        data: {
          subscriptionId,
          changes: {
            url: 'https://hooks.shop.example/orders',
            events: ['order.created', 'payment.received'],
          },
          changedAt: at(1),
        },
      })
      .then([
        {
          type: 'WebhookSubscriptionChanged',
          data: {
            subscriptionId,
            changes: { events: ['order.created', 'payment.received'] },
            changedAt: at(1),
          },
        },
      ]);
    spec
      .given([registered])
      .when({
        type: 'ChangeSubscription',
        data: { subscriptionId, changes: { active: true, description: null }, changedAt: at(1) },
      })
      .then([]);
  });

  it('keeps the replaced secret signing until the overlap ends, and retires older ones', () => {
    const rotate = (secret: string, minute: number): SubscriptionEvent => ({
      type: 'WebhookSecretRotated',
      data: { subscriptionId, secret, previousSecretExpiresAt: at(minute + 30), rotatedAt: at(minute) },
    });
    spec
      .given([registered])
      .when({
        type: 'RotateSecret',
        data: { subscriptionId, secret: 'sealed-2', previousSecretExpiresAt: at(31), rotatedAt: at(1) },
      })
      .then([rotate('sealed-2', 1)]);
    // What the subscription keeps of it is its read model's: the view's own fold.
    const state = subscriptionOf([registered, rotate('sealed-2', 1), rotate('sealed-3', 2)]);
    expect(state).toMatchObject({
      secrets: [
        { sealed: 'sealed-3', expiresAt: null },
        { sealed: 'sealed-2', expiresAt: at(32) },
      ],
    });
  });

  it('is disabled by a 410 once; an admin reactivating it clears the reason', () => {
    spec.given([registered]).when({ type: 'DisableSubscription', data: disabling }).then([disabled]);
    spec.given([registered, disabled]).when({ type: 'DisableSubscription', data: disabling }).then([]);
    const reactivated = subscriptionOf([
      registered,
      disabled,
      {
        type: 'WebhookSubscriptionChanged',
        data: { subscriptionId, changes: { active: true }, changedAt: at(4) },
      },
    ]);
    expect(reactivated).toMatchObject({ status: 'active', disabledReason: null, updatedAt: at(4) });
  });

  it('is gone once removed: every later command is refused as not found', () => {
    spec
      .given([registered])
      .when({ type: 'RemoveSubscription', data: { subscriptionId, removedAt: at(5) } })
      .then([removed]);
    for (const command of [
      { type: 'RemoveSubscription', data: { subscriptionId, removedAt: at(6) } },
      {
        type: 'RequestTestDelivery',
        data: { subscriptionId, eventType: 'webhook.test', requestedAt: at(6) },
      },
      { type: 'ChangeSubscription', data: { subscriptionId, changes: { active: false }, changedAt: at(6) } },
    ] as const) {
      spec
        .given([registered, removed])
        .when(command)
        .thenThrows(SubscriptionNotFoundError, { subscriptionId });
    }
    spec
      .given([])
      .when({ type: 'RequestRedelivery', data: { subscriptionId, deliveryId: 'd', requestedAt: at(1) } })
      .thenThrows(SubscriptionNotFoundError);
  });

  it('recovers deliveries as one redelivery request each, and none for a subscription that is not there', () => {
    const recover = (deliveryIds: string[]) =>
      ({ type: 'RecoverDeliveries', data: { subscriptionId, deliveryIds, requestedAt: at(3) } }) as const;
    spec
      .given([registered])
      .when(recover(['d1', 'd2']))
      .then(
        ['d1', 'd2'].map((deliveryId) => ({
          type: 'WebhookRedeliveryRequested',
          data: { subscriptionId, deliveryId, requestedAt: at(3) },
        })),
      );
    spec.given([registered]).when(recover([])).then([]);
    spec
      .given([registered, removed])
      .when(recover(['d1']))
      .thenThrows(SubscriptionNotFoundError, { subscriptionId });
  });

  it('records test and redelivery requests without changing the subscription', () => {
    const before = subscriptionOf([registered]);
    const after = subscriptionOf([
      registered,
      {
        type: 'WebhookTestRequested',
        data: { subscriptionId, eventType: 'webhook.test', requestedAt: at(1) },
      },
      { type: 'WebhookRedeliveryRequested', data: { subscriptionId, deliveryId: 'd', requestedAt: at(2) } },
    ]);
    expect(after).toEqual(before);
  });

  it('records the event type a test asks an example of, whichever the subscription takes (issue 44)', () => {
    spec
      .given([registered])
      .when({
        type: 'RequestTestDelivery',
        data: { subscriptionId, eventType: 'payment.received', requestedAt: at(1) },
      })
      .then([
        {
          type: 'WebhookTestRequested',
          data: { subscriptionId, eventType: 'payment.received', requestedAt: at(1) },
        },
      ]);
  });
});
