import { replay } from '../decider.ts';
import { subscriptionDecider } from './webhook-subscription-decider.ts';
import {
  subscriptionEventTypes,
  type SubscriptionEvent,
  type SubscriptionState,
} from './webhook-subscription.ts';

/** Narrows a stored event (type and data) to a subscription event, or says it is none. */
export const asSubscriptionEvent = (event: {
  type: string;
  data: Record<string, unknown>;
}): SubscriptionEvent | undefined =>
  (subscriptionEventTypes as readonly string[]).includes(event.type)
    ? (event as unknown as SubscriptionEvent)
    : undefined;

/** The subscription a stored history describes. */
export const subscriptionFromHistory = (
  history: Iterable<{ type: string; data: Record<string, unknown> }>,
): SubscriptionState => {
  const events: SubscriptionEvent[] = [];
  for (const stored of history) {
    const event = asSubscriptionEvent(stored);
    if (event) events.push(event);
  }
  return replay(subscriptionDecider, events);
};
