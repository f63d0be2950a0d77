/**
 * A webhook subscription: where one subscriber wants which public events delivered, and the secrets that
 * sign them. Event-sourced like orders, so who registered, changed, rotated or removed it stays auditable.
 */

/** The public event kinds a subscription can ask for (spec 6). `webhook.test` is sent on request only. */
export const webhookEventKinds = ['order.created', 'order.status_changed', 'payment.received'] as const;
export type WebhookEventKind = (typeof webhookEventKinds)[number];

/**
 * A signing secret as the domain keeps it: sealed (encrypted) by the caller, opaque here. A previous secret
 * keeps signing until `expiresAt` after a rotation; the current one has none.
 */
export type SigningSecret = { sealed: string; expiresAt: string | null };

/** Absent (or undefined) fields stay as they are. */
export type SubscriptionChanges = {
  url?: string | undefined;
  events?: WebhookEventKind[] | undefined;
  description?: string | null | undefined;
  active?: boolean | undefined;
};

// Commands

export type RegisterSubscription = {
  type: 'RegisterSubscription';
  data: {
    subscriptionId: string;
    url: string;
    events: WebhookEventKind[];
    description: string | null;
    secret: string;
    registeredAt: string;
  };
};
export type ChangeSubscription = {
  type: 'ChangeSubscription';
  data: { subscriptionId: string; changes: SubscriptionChanges; changedAt: string };
};
/** The caller says until when the replaced secret keeps signing (decisions.md: 24 hours). */
export type RotateSecret = {
  type: 'RotateSecret';
  data: { subscriptionId: string; secret: string; previousSecretExpiresAt: string; rotatedAt: string };
};
/** The receiver answered 410 Gone: it asked not to be called again. */
export type DisableSubscription = {
  type: 'DisableSubscription';
  data: { subscriptionId: string; reason: string; disabledAt: string };
};
export type RemoveSubscription = {
  type: 'RemoveSubscription';
  data: { subscriptionId: string; removedAt: string };
};
export type RequestTestDelivery = {
  type: 'RequestTestDelivery';
  data: { subscriptionId: string; requestedAt: string };
};
export type RequestRedelivery = {
  type: 'RequestRedelivery';
  data: { subscriptionId: string; deliveryId: string; requestedAt: string };
};

export type SubscriptionCommand =
  | RegisterSubscription
  | ChangeSubscription
  | RotateSecret
  | DisableSubscription
  | RemoveSubscription
  | RequestTestDelivery
  | RequestRedelivery;

// Events

export type SubscriptionRegistered = {
  type: 'WebhookSubscriptionRegistered';
  data: {
    subscriptionId: string;
    url: string;
    events: WebhookEventKind[];
    description: string | null;
    secret: string;
    registeredAt: string;
  };
};
/** Only the fields that changed. */
export type SubscriptionChanged = {
  type: 'WebhookSubscriptionChanged';
  data: { subscriptionId: string; changes: SubscriptionChanges; changedAt: string };
};
export type SecretRotated = {
  type: 'WebhookSecretRotated';
  data: { subscriptionId: string; secret: string; previousSecretExpiresAt: string; rotatedAt: string };
};
export type SubscriptionDisabled = {
  type: 'WebhookSubscriptionDisabled';
  data: { subscriptionId: string; reason: string; disabledAt: string };
};
export type SubscriptionRemoved = {
  type: 'WebhookSubscriptionRemoved';
  data: { subscriptionId: string; removedAt: string };
};
export type TestDeliveryRequested = {
  type: 'WebhookTestRequested';
  data: { subscriptionId: string; requestedAt: string };
};
export type RedeliveryRequested = {
  type: 'WebhookRedeliveryRequested';
  data: { subscriptionId: string; deliveryId: string; requestedAt: string };
};

export type SubscriptionEvent =
  | SubscriptionRegistered
  | SubscriptionChanged
  | SecretRotated
  | SubscriptionDisabled
  | SubscriptionRemoved
  | TestDeliveryRequested
  | RedeliveryRequested;

export const subscriptionEventTypes: readonly SubscriptionEvent['type'][] = [
  'WebhookSubscriptionRegistered',
  'WebhookSubscriptionChanged',
  'WebhookSecretRotated',
  'WebhookSubscriptionDisabled',
  'WebhookSubscriptionRemoved',
  'WebhookTestRequested',
  'WebhookRedeliveryRequested',
];

// States

export type NoSubscription = { status: 'none' };
export type RemovedSubscription = { status: 'removed'; id: string };
export type Subscription = {
  status: 'active' | 'inactive';
  id: string;
  url: string;
  events: WebhookEventKind[];
  description: string | null;
  /** Why the service stopped it (the receiver answered 410); null when an admin did, or while active. */
  disabledReason: string | null;
  /** The current secret first, then any previous one still signing. */
  secrets: SigningSecret[];
  createdAt: string;
  updatedAt: string;
};

export type SubscriptionState = NoSubscription | RemovedSubscription | Subscription;

export const subscriptionStreamName = (subscriptionId: string): string =>
  `webhook-subscription-${subscriptionId}`;
export const subscriptionStreamPrefix = 'webhook-subscription-';
