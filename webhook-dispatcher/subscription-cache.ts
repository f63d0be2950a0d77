import type { WebhookEventKind } from '../domain/webhook-subscriptions/subscription.ts';
import type { WebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/subscription-read-model.ts';
import type { LiveSubscriptionView } from '../webhooks/subscription-view.ts';

export type SubscriptionCacheDeps = {
  subscriptions: WebhookSubscriptionReadModel;
  /** Resolves once the subscription read model has applied the log up to this position. */
  subscriptionsReached: (position: bigint) => Promise<void>;
};

/**
 * The dispatcher's copy of the webhook subscriptions, so that neither matching an event nor an attempt
 * reads them from the store. It is as recent as a position of the log: it is read again only when an event
 * says the subscriptions changed after that position (the relay stamps each event with the position of the
 * last subscription event before it), when an attempt names a subscription it does not know, and at the
 * worker's slow safety poll.
 */
export const createSubscriptionCache = ({ subscriptions, subscriptionsReached }: SubscriptionCacheDeps) => {
  let byId = new Map<string, LiveSubscriptionView>();
  /** The log position the copy reflects at least; null before the first read. */
  let knownAt: bigint | null = null;
  /** One read at a time; whoever needs more waits for it and then looks again. */
  let reading: Promise<void> = Promise.resolve();

  const read = (reached: bigint | null) => {
    const next = reading.then(async () => {
      const listed = await subscriptions.list();
      byId = new Map(listed.map((subscription) => [subscription.id, subscription]));
      if (reached !== null && (knownAt === null || reached > knownAt)) knownAt = reached;
    });
    reading = next.catch(() => undefined);
    return next;
  };

  return {
    /** Brings the copy up to at least `position`: nothing to read when it is that recent already. */
    async reach(position: bigint): Promise<void> {
      while (knownAt === null || knownAt < position) {
        await subscriptionsReached(position);
        await read(position);
      }
    },

    /** The active subscriptions that asked for this kind of event, as of the copy. */
    subscribedTo(kind: WebhookEventKind): LiveSubscriptionView[] {
      return [...byId.values()].filter(
        (subscription) => subscription.status === 'active' && subscription.events.includes(kind),
      );
    },

    /** A subscription from the copy; one it does not know is looked for in the store once. */
    async get(id: string): Promise<LiveSubscriptionView | null> {
      const known = byId.get(id);
      if (known) return known;
      await read(null);
      return byId.get(id) ?? null;
    },

    /** This dispatcher disabled it (410 Gone): no more attempts, before the projection says so. */
    disabled(id: string): void {
      const known = byId.get(id);
      if (known && known.status === 'active') byId.set(id, { ...known, status: 'inactive' });
    },

    /** Reads the subscriptions again (the safety poll): changes to secrets and statuses show up here. */
    refresh: () => read(null),
  };
};

export type SubscriptionCache = ReturnType<typeof createSubscriptionCache>;
