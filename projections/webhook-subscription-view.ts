import { evolve, initialState } from '../domain/webhook-subscription/webhook-subscription-decider.ts';
import { asSubscriptionEvent } from '../domain/webhook-subscription/webhook-subscription-events.ts';
import {
  subscriptionStreamPrefix,
  type RemovedSubscription,
  type Subscription,
} from '../domain/webhook-subscription/webhook-subscription.ts';
import type { RecordedEvent } from '../infrastructure/event-store/event-store.ts';
import { isNextRevision } from './revision-guard.ts';

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

export const isSubscriptionStream = (streamId: string): boolean =>
  streamId.startsWith(subscriptionStreamPrefix);
export const subscriptionIdOf = (streamId: string): string => streamId.slice(subscriptionStreamPrefix.length);

/**
 * The fold every subscription read model adapter uses: the decider's evolve, guarded by stream revision.
 * Undefined when the event changes nothing (another stream, or applied already).
 */
export const nextSubscriptionView = (
  current: WebhookSubscriptionView | null,
  event: RecordedEvent,
): WebhookSubscriptionView | undefined => {
  if (!isSubscriptionStream(event.streamId)) return undefined;
  const subscriptionEvent = asSubscriptionEvent(event);
  if (!subscriptionEvent) return undefined;
  if (!isNextRevision(current?.revision, event)) return undefined;
  const state = current ? stateOf(current) : initialState();
  const next = evolve(state, subscriptionEvent);
  if (next.status === 'none') throw new Error(`${event.streamId}: ${event.type} left no subscription`);
  const position = event.position.toString();
  return {
    ...next,
    revision: event.revision,
    position,
    registeredPosition: current?.registeredPosition ?? position,
  };
};

const stateOf = ({
  revision: _revision,
  position: _position,
  registeredPosition: _registeredPosition,
  ...state
}: WebhookSubscriptionView) => state;

/** The subscription resource the API sends: never a secret, sealed or not. */
export const subscriptionResource = (view: Subscription) => ({
  id: view.id,
  url: view.url,
  events: view.events,
  description: view.description,
  active: view.status === 'active',
  disabledReason: view.disabledReason,
  createdAt: view.createdAt,
  updatedAt: view.updatedAt,
});
