import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { EventStoreDBClient } from '@eventstore/db-client';
import { z } from 'zod';
import type { CatalogStore } from '../catalog/catalog.ts';
import { catalogEnvironment } from '../catalog/catalog-config.ts';
import type { RefreshTokenStore } from '../infrastructure/auth/refresh-tokens.ts';
import type { UserStore } from '../identity/users.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import { eventStoreUrl } from '../infrastructure/config/service-environment.ts';
import {
  personalDataConfig,
  personalDataEnvironment,
  resolvePersonalDataKeys,
} from '../infrastructure/config/personal-data-environment.ts';
import type { DataKeyStore } from '../infrastructure/personal-data/data-key-store.ts';
import { createEventStoreDbEventStore } from '../infrastructure/event-store/eventstoredb-event-store.ts';
import { createSqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.ts';
import { createPostgresEventStore } from '../infrastructure/event-store/postgres/postgres-event-store.ts';
import { eventLogEnvironment } from '../infrastructure/config/service-environment.ts';
import { bulkLoadCacheKib, openDatabase } from '../infrastructure/sqlite/open-database.ts';
import type { CheckpointStore } from '../infrastructure/event-sourcing/checkpoints.ts';
import { mongoScratchOrderReadModel } from '../projections/orders/mongo-order-read-model.ts';
import type { OrderReadModel } from '../projections/orders/order-read-model.ts';
import type { ScratchOrderReadModel } from '../projections/orders/rebuild.ts';
import { sqliteScratchOrderReadModel } from '../projections/orders/sqlite-order-read-model.ts';
import { mongoStores } from '../assembly/mongo-stores.ts';
import { sqliteStores } from '../assembly/sqlite-stores.ts';
import type { ReadStores } from '../assembly/read-stores.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';

/** Which store the admin CLI works on: MongoDB when MONGODB_URL is set, else the embedded DATA_DIR. */
export const adminConfigSchema = z
  .object({
    DATA_DIR: z
      .string()
      .min(1)
      .default('./data')
      .describe('The embedded stores to work on, unless MONGODB_URL is set.'),
    MONGODB_URL: z
      .string()
      .min(1)
      .optional()
      .describe('Work on MongoDB instead of DATA_DIR (the distributed mode).'),
    MONGODB_DATABASE: z.string().min(1).default('order_service').describe('The MongoDB database.'),
    EVENT_LOG_URL: eventLogEnvironment.EVENT_LOG_URL.describe(
      'The event log on PostgreSQL (the distributed mode); else EVENTSTORE_URL, else DATA_DIR/events.sqlite.',
    ),
    EVENTSTORE_URL: eventStoreUrl
      .optional()
      .describe('The event log on EventStoreDB; else DATA_DIR/events.sqlite.'),
    CATALOG_CURRENCY: catalogEnvironment.CATALOG_CURRENCY,
    ...personalDataEnvironment,
  })
  .superRefine((env, context) => {
    if (env.EVENT_LOG_URL !== undefined && env.EVENTSTORE_URL !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['EVENT_LOG_URL'],
        message: 'set EVENT_LOG_URL or EVENTSTORE_URL, not both',
      });
    }
  });

export type AdminStores = {
  description: string;
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  catalog: CatalogStore;
  /** The data keys of personal data (erasure deletes one; a re-seal rewrites them all). */
  dataKeys: DataKeyStore;
  /** After an erasure: what the store keeps of deleted data in side files (SQLite's WAL) is dropped too. */
  flushDeleted: () => Promise<void>;
  /** The data keys' key-encryption keys: the configured ones, or the embedded default's DATA_DIR/keys. */
  keyEncryptionKeys: () => { current: Buffer; previous: Buffer[] };
  /** The event log, opened on first use. */
  events: () => Promise<EventStore>;
  orders: {
    live: OrderReadModel;
    checkpoints: CheckpointStore;
    /** Where projections:rebuild builds before it swaps in. */
    rebuild: () => Promise<ScratchOrderReadModel>;
    /** A throw-away read model for projections:verify. */
    scratch: () => Promise<ScratchOrderReadModel>;
  };
  close: () => Promise<void>;
};

/** The log is absent (a DATA_DIR where the service never ran): nothing to export or replay. */
export class MissingEventLogError extends Error {
  readonly kind = 'missing-event-log';
}

const eventLog = (config: z.infer<typeof adminConfigSchema>) => {
  let opened: EventStore | undefined;
  return {
    async open(): Promise<EventStore> {
      if (opened) return opened;
      if (config.EVENT_LOG_URL) {
        opened = await createPostgresEventStore({
          url: config.EVENT_LOG_URL,
          poolSize: 2,
          statementTimeoutMs: 60_000,
          applicationName: 'order-service-admin',
        });
      } else if (config.EVENTSTORE_URL) {
        opened = createEventStoreDbEventStore(EventStoreDBClient.connectionString(config.EVENTSTORE_URL));
      } else {
        const path = join(config.DATA_DIR, 'events.sqlite');
        if (!existsSync(path)) throw new MissingEventLogError(`no event log at ${path}: check DATA_DIR`);
        opened = createSqliteEventStore({ path });
      }
      return opened;
    },
    close: async () => opened?.close(),
  };
};

/** What the admin CLI uses of the read store, from either family. */
const commonStores = async (stores: ReadStores) => ({
  description: stores.description,
  users: await stores.users(),
  refreshTokens: await stores.refreshTokens(),
  catalog: await stores.catalog(),
  dataKeys: stores.dataKeys(),
  flushDeleted: stores.flushDeleted,
});

export const openAdminStores = async (config: z.infer<typeof adminConfigSchema>): Promise<AdminStores> => {
  const log = eventLog(config);
  if (config.MONGODB_URL) {
    const mongo = await connectMongo({ url: config.MONGODB_URL, database: config.MONGODB_DATABASE });
    const stores = mongoStores(mongo, `MongoDB database ${config.MONGODB_DATABASE}`);
    return {
      ...(await commonStores(stores)),
      keyEncryptionKeys: () => resolvePersonalDataKeys(personalDataConfig(config), null),
      events: log.open,
      orders: {
        live: await stores.orders(),
        checkpoints: stores.checkpoints(),
        rebuild: () => mongoScratchOrderReadModel(mongo.db),
        scratch: () =>
          mongoScratchOrderReadModel(mongo.db, `order_views_verify_${randomUUID().replaceAll('-', '')}`),
      },
      close: async () => {
        await log.close();
        await stores.close();
      },
    };
  }
  // SQLite allows this second connection while the service runs: writes wait for each other's lock.
  const db = openDatabase({ path: join(config.DATA_DIR, 'read-store.sqlite'), cacheKib: bulkLoadCacheKib });
  const stores = sqliteStores(db, `embedded store in ${config.DATA_DIR}`);
  return {
    ...(await commonStores(stores)),
    keyEncryptionKeys: () =>
      resolvePersonalDataKeys(personalDataConfig(config), join(config.DATA_DIR, 'keys', 'personal-data-key')),
    events: log.open,
    orders: {
      live: await stores.orders(),
      checkpoints: stores.checkpoints(),
      rebuild: async () => sqliteScratchOrderReadModel(db),
      scratch: async () => {
        const memory = new DatabaseSync(':memory:');
        const scratch = sqliteScratchOrderReadModel(memory);
        return {
          ...scratch,
          promote: () => Promise.reject(new Error('a verification scratch store is never swapped in')),
          discard: async () => memory.close(),
        };
      },
    },
    close: async () => {
      await log.close();
      await stores.close();
    },
  };
};
