import { randomUUID } from 'node:crypto';
import { subscriptionDecider } from '../../domain/webhook-subscriptions/subscription-decider.ts';
import {
  subscriptionStreamName,
  type SubscriptionCommand,
} from '../../domain/webhook-subscriptions/subscription.ts';
import type { RecordedEvent } from '../../infrastructure/event-store/event-store.ts';

let nextPosition = 5_000_000n;

export const registerCommand = (
  subscriptionId: string,
  overrides: Partial<Extract<SubscriptionCommand, { type: 'RegisterSubscription' }>['data']> = {},
): SubscriptionCommand => ({
  type: 'RegisterSubscription',
  data: {
    subscriptionId,
    url: `https://hooks.shop.example/${subscriptionId}`,
    events: ['order.created', 'order.status_changed'],
    description: null,
    secret: `sealed-${randomUUID()}`,
    registeredAt: '2026-11-21T10:00:00.000Z',
    ...overrides,
  },
});

/** The recorded events a subscription's commands give, decided by the real decider. */
export const recordedSubscriptionHistory = (
  commands: (subscriptionId: string) => SubscriptionCommand[],
  subscriptionId: string = randomUUID(),
): { subscriptionId: string; events: RecordedEvent[] } => {
  let state = subscriptionDecider.initialState();
  const events: RecordedEvent[] = [];
  for (const command of commands(subscriptionId)) {
    for (const event of subscriptionDecider.decide(command, state)) {
      state = subscriptionDecider.evolve(state, event);
      events.push({
        id: randomUUID(),
        type: event.type,
        data: event.data as unknown as Record<string, unknown>,
        metadata: {
          actor: null,
          correlationId: randomUUID(),
          causationId: null,
          occurredAt: '2026-11-21T10:00:00.000Z',
        },
        streamId: subscriptionStreamName(subscriptionId),
        revision: events.length,
        position: nextPosition++,
      });
    }
  }
  return { subscriptionId, events };
};
