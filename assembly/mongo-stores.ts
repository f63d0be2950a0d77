import { createMongoCatalogStore } from '../catalog/mongo-catalog-store.ts';
import { createMongoIdempotencyStore } from '../command-api/idempotency/mongo-idempotency-store.ts';
import { createMongoUserStore } from '../identity/mongo-user-store.ts';
import { createMongoRefreshTokenStore } from '../infrastructure/auth/mongo-refresh-token-store.ts';
import { createMongoCheckpointStore } from '../infrastructure/event-sourcing/mongo-checkpoint-store.ts';
import type { MongoConnection } from '../infrastructure/mongo/connect-mongo.ts';
import { pingCheck } from '../infrastructure/operations/readiness.ts';
import { createMongoDataKeyStore } from '../infrastructure/personal-data/mongo-data-key-store.ts';
import { createMongoOrderReadModel } from '../projections/orders/mongo-order-read-model.ts';
import { createMongoWebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/mongo-subscription-read-model.ts';
import { createMongoDeliveryLog } from '../webhooks/deliveries/mongo-delivery-log.ts';
import { createMongoDeliveryQueue } from '../webhooks/deliveries/mongo-delivery-queue.ts';
import { once, type ReadStores } from './read-stores.ts';

/** The read store in a MongoDB database (the distributed mode). */
export const mongoStores = (mongo: MongoConnection, description: string): ReadStores => {
  const { db } = mongo;
  return {
    description,
    users: once(() => createMongoUserStore(db)),
    refreshTokens: once(() => createMongoRefreshTokenStore(db)),
    catalog: once(() => createMongoCatalogStore(db)),
    dataKeys: once(() => createMongoDataKeyStore(db)),
    idempotency: once(() => createMongoIdempotencyStore(db)),
    checkpoints: once(() => createMongoCheckpointStore(db)),
    orders: once(() => createMongoOrderReadModel(db)),
    subscriptions: once(() => createMongoWebhookSubscriptionReadModel(db)),
    deliveryQueue: once(() => createMongoDeliveryQueue(db)),
    deliveryLog: once(() => createMongoDeliveryLog(db)),
    readiness: pingCheck(mongo.ping),
    flushDeleted: async () => {},
    close: () => mongo.close(),
  };
};
