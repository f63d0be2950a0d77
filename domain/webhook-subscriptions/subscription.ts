/**
 * A webhook subscription: where one subscriber wants which public events delivered, and the secrets that
 * sign them. Event-sourced like orders, so who registered, changed, rotated or removed it stays auditable.
 */

/** The public event kinds a subscription can ask for. `webhook.test` is sent on request only. */
export const webhookEventKinds = ['order.created', 'order.status_changed', 'payment.received'] as const;
export type WebhookEventKind = (typeof webhookEventKinds)[number];

/**
 * What an admin may send a test event of (POST /webhooks/{id}/test): `webhook.test`, and an example of
 * every kind a subscription can ask for, whichever it asks for.
 */
export const testEventTypes = ['webhook.test', ...webhookEventKinds] as const;
export type TestEventType = (typeof testEventTypes)[number];

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
/** The caller says until when the replaced secret keeps signing (24 hours). */
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
  data: { subscriptionId: string; eventType: TestEventType; requestedAt: string };
};
export type RequestRedelivery = {
  type: 'RequestRedelivery';
  data: { subscriptionId: string; deliveryId: string; requestedAt: string };
};
/** An admin's recovery: each of these (dead-lettered) deliveries delivered again, as a retry does. */
export type RecoverDeliveries = {
  type: 'RecoverDeliveries';
  data: { subscriptionId: string; deliveryIds: readonly string[]; requestedAt: string };
};

export type SubscriptionCommand =
  | RegisterSubscription
  | ChangeSubscription
  | RotateSecret
  | DisableSubscription
  | RemoveSubscription
  | RequestTestDelivery
  | RequestRedelivery
  | RecoverDeliveries;

export const subscriptionStreamPrefix = 'webhook-subscription-';
export const subscriptionStreamName = (subscriptionId: string): string =>
  `${subscriptionStreamPrefix}${subscriptionId}`;
export const isSubscriptionStream = (streamId: string): boolean =>
  streamId.startsWith(subscriptionStreamPrefix);
export const subscriptionIdOf = (streamId: string): string => streamId.slice(subscriptionStreamPrefix.length);
