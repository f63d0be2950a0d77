import type { WebhookEventKind } from '../../domain/webhook-subscriptions/subscription.ts';
import type { RecordedEvent } from '../../infrastructure/event-store/event-store.ts';
import type { LiveSubscriptionView } from '../../webhooks/subscription-view.ts';

/** Webhook subscriptions as the admin API lists them and the dispatcher matches events against them. */
export type WebhookSubscriptionReadModel = {
  /** Idempotent by stream revision, like every read model; events of other streams are ignored. */
  applyEvents(events: readonly RecordedEvent[]): Promise<void>;
  /** A subscription that exists and is not removed. */
  get(id: string): Promise<LiveSubscriptionView | null>;
  /** Every subscription not removed, oldest first. */
  list(): Promise<LiveSubscriptionView[]>;
  /** The active subscriptions that asked for this kind of event. */
  subscribedTo(kind: WebhookEventKind): Promise<LiveSubscriptionView[]>;
};
