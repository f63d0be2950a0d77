import type { Decider } from '../shared/decider.ts';
import { InvariantViolationError } from '../shared/errors.ts';
import type { SealedWebhookUrl, SubscriptionEvent } from './subscription-events.ts';
import { SubscriptionAlreadyExistsError, SubscriptionNotFoundError } from './subscription-errors.ts';
import type { SubscriptionChanges, SubscriptionCommand, WebhookEventKind } from './subscription.ts';

/**
 * What deciding needs to know of a subscription: whether it exists, and what a change would change. Its
 * secrets, dates and the rest are the subscription read model's (projections/webhook-subscriptions).
 */
export type SubscriptionState =
  | { status: 'none' }
  | { status: 'removed' }
  | {
      status: 'active' | 'inactive';
      /** As the command side reads it: opened (the command handler's codec opens sealed URLs). */
      url: string | SealedWebhookUrl;
      events: readonly WebhookEventKind[];
      description: string | null;
    };

type Existing = Extract<SubscriptionState, { status: 'active' | 'inactive' }>;

export const initialState = (): SubscriptionState => ({ status: 'none' });

const existing = (state: SubscriptionState, subscriptionId: string): Existing => {
  if (state.status === 'none' || state.status === 'removed')
    throw new SubscriptionNotFoundError(subscriptionId);
  return state;
};

const sameEvents = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((kind) => b.includes(kind));

/** The changes that differ from the subscription as it is: a PATCH that changes nothing records nothing. */
const effectiveChanges = (subscription: Existing, changes: SubscriptionChanges): SubscriptionChanges => {
  const effective: SubscriptionChanges = {};
  if (changes.url !== undefined && changes.url !== subscription.url) effective.url = changes.url;
  if (changes.events !== undefined && !sameEvents(changes.events, subscription.events)) {
    effective.events = [...changes.events];
  }
  if (changes.description !== undefined && changes.description !== subscription.description) {
    effective.description = changes.description;
  }
  if (changes.active !== undefined && changes.active !== (subscription.status === 'active')) {
    effective.active = changes.active;
  }
  return effective;
};

const requireEvents = (events: readonly string[] | undefined) => {
  if (events !== undefined && events.length === 0) {
    throw new InvariantViolationError([{ field: 'events', message: 'must name at least one event kind' }]);
  }
};

export const decide = (command: SubscriptionCommand, state: SubscriptionState): SubscriptionEvent[] => {
  switch (command.type) {
    case 'RegisterSubscription': {
      const { subscriptionId, url, events, description, secret, registeredAt } = command.data;
      if (state.status !== 'none') throw new SubscriptionAlreadyExistsError(subscriptionId);
      requireEvents(events);
      return [
        {
          type: 'WebhookSubscriptionRegistered',
          data: { subscriptionId, url, events: [...events], description, secret, registeredAt },
        },
      ];
    }
    case 'ChangeSubscription': {
      const { subscriptionId, changedAt } = command.data;
      const changes = effectiveChanges(existing(state, subscriptionId), command.data.changes);
      requireEvents(changes.events);
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'WebhookSubscriptionChanged', data: { subscriptionId, changes, changedAt } }];
    }
    case 'RotateSecret': {
      const { subscriptionId, secret, previousSecretExpiresAt, rotatedAt } = command.data;
      existing(state, subscriptionId);
      return [
        {
          type: 'WebhookSecretRotated',
          data: { subscriptionId, secret, previousSecretExpiresAt, rotatedAt },
        },
      ];
    }
    case 'DisableSubscription': {
      const { subscriptionId, reason, disabledAt } = command.data;
      // Already inactive (an admin or an earlier 410 stopped it): nothing more to record.
      if (existing(state, subscriptionId).status === 'inactive') return [];
      return [{ type: 'WebhookSubscriptionDisabled', data: { subscriptionId, reason, disabledAt } }];
    }
    case 'RemoveSubscription': {
      const { subscriptionId, removedAt } = command.data;
      existing(state, subscriptionId);
      return [{ type: 'WebhookSubscriptionRemoved', data: { subscriptionId, removedAt } }];
    }
    case 'RequestTestDelivery': {
      const { subscriptionId, eventType, requestedAt } = command.data;
      existing(state, subscriptionId);
      return [{ type: 'WebhookTestRequested', data: { subscriptionId, eventType, requestedAt } }];
    }
    case 'RequestRedelivery': {
      const { subscriptionId, deliveryId, requestedAt } = command.data;
      existing(state, subscriptionId);
      return [{ type: 'WebhookRedeliveryRequested', data: { subscriptionId, deliveryId, requestedAt } }];
    }
    case 'RecoverDeliveries': {
      const { subscriptionId, deliveryIds, requestedAt } = command.data;
      existing(state, subscriptionId);
      return deliveryIds.map((deliveryId) => ({
        type: 'WebhookRedeliveryRequested' as const,
        data: { subscriptionId, deliveryId, requestedAt },
      }));
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown subscription command ${JSON.stringify(unknown)}`);
    }
  }
};

export const evolve = (state: SubscriptionState, event: SubscriptionEvent): SubscriptionState => {
  switch (event.type) {
    case 'WebhookSubscriptionRegistered': {
      const { url, events, description } = event.data;
      return { status: 'active', url, events, description };
    }
    case 'WebhookSubscriptionChanged': {
      const subscription = existing(state, event.data.subscriptionId);
      const { url, events, description, active } = event.data.changes;
      return {
        status: active === undefined ? subscription.status : active ? 'active' : 'inactive',
        url: url ?? subscription.url,
        events: events ?? subscription.events,
        description: description === undefined ? subscription.description : description,
      };
    }
    case 'WebhookSubscriptionDisabled':
      return { ...existing(state, event.data.subscriptionId), status: 'inactive' };
    case 'WebhookSubscriptionRemoved':
      return { status: 'removed' };
    case 'WebhookSecretRotated':
    case 'WebhookTestRequested':
    case 'WebhookRedeliveryRequested':
      // Nothing a later decision depends on.
      return state;
    default: {
      const unknown: never = event;
      throw new Error(`unknown subscription event ${JSON.stringify(unknown)}`);
    }
  }
};

export const subscriptionDecider: Decider<SubscriptionCommand, SubscriptionEvent, SubscriptionState> = {
  initialState,
  evolve,
  decide,
};
