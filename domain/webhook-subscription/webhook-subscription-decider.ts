import type { Decider } from '../decider.ts';
import { InvariantViolationError } from '../errors.ts';
import { SubscriptionAlreadyExistsError, SubscriptionNotFoundError } from './webhook-subscription-errors.ts';
import {
  type SigningSecret,
  type Subscription,
  type SubscriptionChanges,
  type SubscriptionCommand,
  type SubscriptionEvent,
  type SubscriptionState,
} from './webhook-subscription.ts';

export const initialState = (): SubscriptionState => ({ status: 'none' });

const existing = (state: SubscriptionState, subscriptionId: string): Subscription => {
  if (state.status === 'none' || state.status === 'removed')
    throw new SubscriptionNotFoundError(subscriptionId);
  return state;
};

const sameEvents = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((kind) => b.includes(kind));

/** The changes that differ from the subscription as it is: a PATCH that changes nothing records nothing. */
const effectiveChanges = (subscription: Subscription, changes: SubscriptionChanges): SubscriptionChanges => {
  const effective: SubscriptionChanges = {};
  if (changes.url !== undefined && changes.url !== subscription.url) effective.url = changes.url;
  if (changes.events !== undefined && !sameEvents(changes.events, subscription.events)) {
    effective.events = changes.events;
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
    case 'RegisterSubscription':
      if (state.status !== 'none') throw new SubscriptionAlreadyExistsError(command.data.subscriptionId);
      requireEvents(command.data.events);
      return [{ type: 'WebhookSubscriptionRegistered', data: command.data }];
    case 'ChangeSubscription': {
      const changes = effectiveChanges(existing(state, command.data.subscriptionId), command.data.changes);
      requireEvents(changes.events);
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'WebhookSubscriptionChanged', data: { ...command.data, changes } }];
    }
    case 'RotateSecret':
      existing(state, command.data.subscriptionId);
      return [{ type: 'WebhookSecretRotated', data: command.data }];
    case 'DisableSubscription':
      // Already inactive (an admin or an earlier 410 stopped it): nothing more to record.
      if (existing(state, command.data.subscriptionId).status === 'inactive') return [];
      return [{ type: 'WebhookSubscriptionDisabled', data: command.data }];
    case 'RemoveSubscription':
      existing(state, command.data.subscriptionId);
      return [{ type: 'WebhookSubscriptionRemoved', data: command.data }];
    case 'RequestTestDelivery':
      existing(state, command.data.subscriptionId);
      return [{ type: 'WebhookTestRequested', data: command.data }];
    case 'RequestRedelivery':
      existing(state, command.data.subscriptionId);
      return [{ type: 'WebhookRedeliveryRequested', data: command.data }];
    default: {
      const unknown: never = command;
      throw new Error(`unknown subscription command ${JSON.stringify(unknown)}`);
    }
  }
};

/** Rotation: the new secret first; the one it replaces signs until the overlap ends; older ones retire. */
const rotated = (secrets: readonly SigningSecret[], sealed: string, previousExpiresAt: string) => {
  const current = secrets.find((secret) => secret.expiresAt === null);
  return [
    { sealed, expiresAt: null },
    ...(current ? [{ sealed: current.sealed, expiresAt: previousExpiresAt }] : []),
  ];
};

export const evolve = (state: SubscriptionState, event: SubscriptionEvent): SubscriptionState => {
  switch (event.type) {
    case 'WebhookSubscriptionRegistered': {
      const { subscriptionId, secret, registeredAt, ...fields } = event.data;
      return {
        status: 'active',
        id: subscriptionId,
        ...fields,
        disabledReason: null,
        secrets: [{ sealed: secret, expiresAt: null }],
        createdAt: registeredAt,
        updatedAt: registeredAt,
      };
    }
    case 'WebhookSubscriptionChanged': {
      const subscription = existing(state, event.data.subscriptionId);
      const { url, events, description, active } = event.data.changes;
      const status = active === undefined ? subscription.status : active ? 'active' : 'inactive';
      return {
        ...subscription,
        url: url ?? subscription.url,
        events: events ?? subscription.events,
        description: description === undefined ? subscription.description : description,
        status,
        disabledReason: status === 'active' || active === false ? null : subscription.disabledReason,
        updatedAt: event.data.changedAt,
      };
    }
    case 'WebhookSecretRotated': {
      const subscription = existing(state, event.data.subscriptionId);
      return {
        ...subscription,
        secrets: rotated(subscription.secrets, event.data.secret, event.data.previousSecretExpiresAt),
        updatedAt: event.data.rotatedAt,
      };
    }
    case 'WebhookSubscriptionDisabled':
      return {
        ...existing(state, event.data.subscriptionId),
        status: 'inactive',
        disabledReason: event.data.reason,
        updatedAt: event.data.disabledAt,
      };
    case 'WebhookSubscriptionRemoved':
      return { status: 'removed', id: event.data.subscriptionId };
    case 'WebhookTestRequested':
    case 'WebhookRedeliveryRequested':
      // Requests for the dispatcher: they change nothing of the subscription itself.
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
