import type {
  SealedWebhookUrl,
  SubscriptionEvent,
} from '../domain/webhook-subscriptions/subscription-events.ts';
import { isSubscriptionStream, type WebhookEventKind } from '../domain/webhook-subscriptions/subscription.ts';
import type { RecordedEvent } from '../infrastructure/event-store/event-store.ts';
import { isNextRevision } from '../infrastructure/event-sourcing/revision-guard.ts';
import { decodeSubscriptionEvent } from '../domain/webhook-subscriptions/subscription-codec.ts';

/**
 * A signing secret as the read model keeps it: sealed (encrypted) by the service's key, opaque here. A
 * previous secret keeps signing until `expiresAt` after a rotation; the current one has none.
 */
export type SigningSecret = { sealed: string; expiresAt: string | null };

/** A subscription as admins read it and the dispatcher uses it. */
export type Subscription = {
  status: 'active' | 'inactive';
  id: string;
  /**
   * Sealed by the service's key beside its origin, like the secrets (opened by the dispatcher to deliver,
   * and for admins); a string only for a subscription registered before URLs were sealed.
   */
  url: string | SealedWebhookUrl;
  events: WebhookEventKind[];
  description: string | null;
  /** Why the service stopped it (the receiver answered 410); null when an admin did, or while active. */
  disabledReason: string | null;
  /** The current secret first, then any previous one still signing. */
  secrets: SigningSecret[];
  createdAt: string;
  updatedAt: string;
};

export type RemovedSubscription = { status: 'removed'; id: string };

/** Rotation: the new secret first; the one it replaces signs until the overlap ends; older ones retire. */
const rotated = (secrets: readonly SigningSecret[], sealed: string, previousExpiresAt: string) => {
  const current = secrets.find((secret) => secret.expiresAt === null);
  return [
    { sealed, expiresAt: null },
    ...(current ? [{ sealed: current.sealed, expiresAt: previousExpiresAt }] : []),
  ];
};

const live = (view: Subscription | RemovedSubscription | null, event: SubscriptionEvent): Subscription => {
  if (view === null || view.status === 'removed') {
    throw new Error(`${event.type} on a subscription that is not registered`);
  }
  return view;
};

/** The subscription after one more event of its stream, in order; null before the first. */
export const evolveSubscription = (
  view: Subscription | RemovedSubscription | null,
  event: SubscriptionEvent,
): Subscription | RemovedSubscription => {
  switch (event.type) {
    case 'WebhookSubscriptionRegistered': {
      const { subscriptionId, url, events, description, secret, registeredAt } = event.data;
      return {
        status: 'active',
        id: subscriptionId,
        url,
        events,
        description,
        disabledReason: null,
        secrets: [{ sealed: secret, expiresAt: null }],
        createdAt: registeredAt,
        updatedAt: registeredAt,
      };
    }
    case 'WebhookSubscriptionChanged': {
      const subscription = live(view, event);
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
      const subscription = live(view, event);
      return {
        ...subscription,
        secrets: rotated(subscription.secrets, event.data.secret, event.data.previousSecretExpiresAt),
        updatedAt: event.data.rotatedAt,
      };
    }
    case 'WebhookSubscriptionDisabled':
      return {
        ...live(view, event),
        status: 'inactive',
        disabledReason: event.data.reason,
        updatedAt: event.data.disabledAt,
      };
    case 'WebhookSubscriptionRemoved':
      return { status: 'removed', id: event.data.subscriptionId };
    case 'WebhookTestRequested':
    case 'WebhookRedeliveryRequested':
      // Requests for the dispatcher: they change nothing of the subscription itself.
      return live(view, event);
    default: {
      const unknown: never = event;
      throw new Error(`unknown subscription event ${JSON.stringify(unknown)}`);
    }
  }
};

/** The subscription a history describes, or null for none. */
export const subscriptionOf = (
  history: readonly SubscriptionEvent[],
): Subscription | RemovedSubscription | null =>
  history.reduce<Subscription | RemovedSubscription | null>(evolveSubscription, null);

/**
 * A subscription as its read model keeps it, including the sealed secrets the dispatcher signs with. A
 * removed one is kept as a tombstone, so that its revision still guards against replayed events.
 */
type Tracking = {
  /** Stream revision of the last event applied. */
  revision: number;
  position: string;
  /** Log position of the registration: events before it are not the subscription's. */
  registeredPosition: string;
};

export type WebhookSubscriptionView = (Subscription | RemovedSubscription) & Tracking;

export type LiveSubscriptionView = Subscription & Tracking;

export const isLive = (view: WebhookSubscriptionView | null | undefined): view is LiveSubscriptionView =>
  view !== null && view !== undefined && view.status !== 'removed';

/**
 * The fold every subscription read model adapter uses: the view's own evolve, guarded by stream revision.
 * Undefined when the event changes nothing (another stream, or applied already).
 */
export const nextSubscriptionView = (
  current: WebhookSubscriptionView | null,
  event: RecordedEvent,
): WebhookSubscriptionView | undefined => {
  if (!isSubscriptionStream(event.streamId)) return undefined;
  const subscriptionEvent = decodeSubscriptionEvent(event);
  if (!subscriptionEvent) return undefined;
  if (!isNextRevision(current?.revision, event)) return undefined;
  const next = evolveSubscription(current ? viewOf(current) : null, subscriptionEvent);
  const position = event.position.toString();
  return {
    ...next,
    revision: event.revision,
    position,
    registeredPosition: current?.registeredPosition ?? position,
  };
};

const viewOf = ({
  revision: _revision,
  position: _position,
  registeredPosition: _registeredPosition,
  ...view
}: WebhookSubscriptionView): Subscription | RemovedSubscription => view;

/**
 * The subscription resource the API sends (to admins): never a secret, sealed or not; the URL whole, opened
 * with `openUrl` (webhook-url.ts).
 */
export const subscriptionResource = (
  view: Subscription,
  openUrl: (url: Subscription['url'], subscriptionId: string) => string,
) => ({
  id: view.id,
  url: openUrl(view.url, view.id),
  events: view.events,
  description: view.description,
  active: view.status === 'active',
  disabledReason: view.disabledReason,
  createdAt: view.createdAt,
  updatedAt: view.updatedAt,
});
