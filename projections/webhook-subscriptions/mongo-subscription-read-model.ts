import { MongoServerError, type Db, type Filter } from 'mongodb';
import type { WebhookSubscriptionReadModel } from './subscription-read-model.ts';
import {
  isLive,
  nextSubscriptionView,
  type LiveSubscriptionView,
  type WebhookSubscriptionView,
} from '../../webhooks/subscription-view.ts';
import { isSubscriptionStream, subscriptionIdOf } from '../../domain/webhook-subscriptions/subscription.ts';

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type SubscriptionDocument = WithoutId<WebhookSubscriptionView> & { _id: string };

const toView = ({ _id, ...rest }: SubscriptionDocument) => ({ id: _id, ...rest }) as WebhookSubscriptionView;
const duplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;
const oldestFirst = { createdAt: 1, _id: 1 } as const;

/**
 * Subscriptions in MongoDB, one document each (a removed one stays as a tombstone). Idempotent without
 * transactions (FerretDB has none): the first event is an insert, a later one a replace conditioned on the
 * revision read, so a concurrent or replayed apply cannot take a subscription back.
 */
export const createMongoWebhookSubscriptionReadModel = async (
  db: Db,
  { collection = 'webhook_subscriptions' }: { collection?: string } = {},
): Promise<WebhookSubscriptionReadModel> => {
  const subscriptions = db.collection<SubscriptionDocument>(collection);
  await subscriptions.createIndex({ status: 1, createdAt: 1, _id: 1 }, { name: 'status' });

  const read = async (id: string) => {
    const document = await subscriptions.findOne({ _id: id });
    return document ? toView(document) : null;
  };
  const live = async (filter: Filter<SubscriptionDocument>) =>
    (await subscriptions.find(filter).sort(oldestFirst).toArray()).map(toView) as LiveSubscriptionView[];

  /** False when another process wrote the subscription since `current` was read. */
  const write = async (current: WebhookSubscriptionView | null, next: WebhookSubscriptionView) => {
    const { id: _id, ...document } = next;
    if (current === null) {
      try {
        await subscriptions.insertOne({ _id, ...document } as SubscriptionDocument);
        return true;
      } catch (error) {
        if (!duplicateKey(error)) throw error;
        return false;
      }
    }
    const result = await subscriptions.replaceOne(
      { _id, revision: current.revision },
      document as WithoutId<WebhookSubscriptionView>,
    );
    return result.matchedCount === 1;
  };

  return {
    async applyEvents(events) {
      const known = new Map<string, WebhookSubscriptionView | null>();
      for (const event of events) {
        if (!isSubscriptionStream(event.streamId)) continue;
        const id = subscriptionIdOf(event.streamId);
        // Folded again on what is stored now when another process got there first: it may have applied
        // this event (then nothing changes) or not.
        for (;;) {
          const current = known.has(id) ? known.get(id)! : await read(id);
          const next = nextSubscriptionView(current, event);
          if (!next) {
            known.set(id, current);
            break;
          }
          if (await write(current, next)) {
            known.set(id, next);
            break;
          }
          known.delete(id);
        }
      }
    },

    async get(id) {
      const view = await read(id);
      return isLive(view) ? view : null;
    },

    list: () => live({ status: { $ne: 'removed' } }),

    subscribedTo: (kind) => live({ status: 'active', events: kind }),
  };
};
