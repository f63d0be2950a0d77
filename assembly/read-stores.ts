import type { CatalogStore } from '../catalog/catalog.ts';
import type { IdempotencyStore } from '../command-api/idempotency/idempotency-store.ts';
import type { UserStore } from '../identity/users.ts';
import type { RefreshTokenStore } from '../infrastructure/auth/refresh-tokens.ts';
import type { CheckpointStore } from '../infrastructure/event-sourcing/checkpoints.ts';
import type { ReadinessCheck } from '../infrastructure/operations/readiness.ts';
import type { DataKeyStore } from '../infrastructure/personal-data/data-key-store.ts';
import type { OrderReadModel } from '../projections/orders/order-read-model.ts';
import type { WebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/subscription-read-model.ts';
import type { DeliveryLog } from '../webhooks/deliveries/delivery-log.ts';
import type { DeliveryQueue } from '../webhooks/deliveries/delivery-queue.ts';

/**
 * Every store of the read store, as one adapter family gives it (node:sqlite in assembly/sqlite-stores.ts,
 * MongoDB in assembly/mongo-stores.ts). A composition root takes the stores its process uses; each is made on
 * first use, once. A new store is one line here and one in each family.
 */
export type ReadStores = {
  /** Where the stores are, for logs and the admin CLI. */
  description: string;
  users: () => Promise<UserStore>;
  refreshTokens: () => Promise<RefreshTokenStore>;
  catalog: () => Promise<CatalogStore>;
  dataKeys: () => DataKeyStore;
  idempotency: () => Promise<IdempotencyStore>;
  checkpoints: () => CheckpointStore;
  orders: () => Promise<OrderReadModel>;
  subscriptions: () => Promise<WebhookSubscriptionReadModel>;
  deliveryQueue: () => Promise<DeliveryQueue>;
  deliveryLog: () => Promise<DeliveryLog>;
  /** What GET /ready asks of the read store. */
  readiness: ReadinessCheck;
  /** After an erasure: what the store keeps of deleted data in side files (SQLite's WAL) is dropped too. */
  flushDeleted: () => Promise<void>;
  close: () => Promise<void>;
};

/** A factory that makes its store on the first call and hands the same one to every later call. */
export const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};
