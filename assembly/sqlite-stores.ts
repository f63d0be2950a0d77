import type { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '../infrastructure/sqlite/open-database.ts';
import { createSqliteCatalogStore } from '../catalog/sqlite-catalog-store.ts';
import { createSqliteIdempotencyStore } from '../command-api/idempotency/sqlite-idempotency-store.ts';
import { createSqliteUserStore } from '../identity/sqlite-user-store.ts';
import { createSqliteRefreshTokenStore } from '../infrastructure/auth/sqlite-refresh-token-store.ts';
import { createSqliteCheckpointStore } from '../infrastructure/event-sourcing/sqlite-checkpoint-store.ts';
import { sqliteCheck } from '../infrastructure/operations/store-checks.ts';
import { createSqliteDataKeyStore } from '../infrastructure/personal-data/sqlite-data-key-store.ts';
import { createSqliteOrderReadModel } from '../projections/orders/sqlite-order-read-model.ts';
import { createSqliteWebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/sqlite-subscription-read-model.ts';
import { createSqliteDeliveryLog } from '../webhooks/deliveries/sqlite-delivery-log.ts';
import { createSqliteDeliveryQueue } from '../webhooks/deliveries/sqlite-delivery-queue.ts';
import { once, type ReadStores } from './read-stores.ts';

/** The read store in one node:sqlite file (the embedded default's `DATA_DIR/read-store.sqlite`). */
export const openSqliteStores = (path: string, description: string): ReadStores =>
  sqliteStores(openDatabase({ path }), description);

/** The read store on an open node:sqlite database. */
export const sqliteStores = (db: DatabaseSync, description: string): ReadStores => ({
  description,
  users: once(async () => createSqliteUserStore(db)),
  refreshTokens: once(async () => createSqliteRefreshTokenStore(db)),
  catalog: once(async () => createSqliteCatalogStore(db)),
  dataKeys: once(() => createSqliteDataKeyStore(db)),
  idempotency: once(async () => createSqliteIdempotencyStore(db)),
  checkpoints: once(() => createSqliteCheckpointStore(db)),
  orders: once(async () => createSqliteOrderReadModel(db)),
  subscriptions: once(async () => createSqliteWebhookSubscriptionReadModel(db)),
  deliveryQueue: once(async () => createSqliteDeliveryQueue(db)),
  deliveryLog: once(async () => createSqliteDeliveryLog(db)),
  readiness: sqliteCheck(db),
  flushDeleted: async () => {
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  },
  close: async () => db.close(),
});
