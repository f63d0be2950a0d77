import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { z } from 'zod';
import type { CatalogStore } from '../catalog/catalog.ts';
import { catalogEnvironment } from '../catalog/catalog-config.ts';
import { createMongoCatalogStore } from '../catalog/mongo-catalog-store.ts';
import { createSqliteCatalogStore } from '../catalog/sqlite-catalog-store.ts';
import { createMongoRefreshTokenStore } from '../identity/mongo-refresh-token-store.ts';
import { createMongoUserStore } from '../identity/mongo-user-store.ts';
import type { RefreshTokenStore } from '../identity/refresh-tokens.ts';
import { createSqliteRefreshTokenStore } from '../identity/sqlite-refresh-token-store.ts';
import { createSqliteUserStore } from '../identity/sqlite-user-store.ts';
import type { UserStore } from '../identity/users.ts';
import { openDatabase } from '../infrastructure/sqlite/open-database.ts';

/** Which store the admin CLI works on: MongoDB when MONGODB_URL is set, else the embedded DATA_DIR. */
export const adminConfigSchema = z.object({
  DATA_DIR: z.string().min(1).default('./data'),
  MONGODB_URL: z.string().min(1).optional(),
  MONGODB_DATABASE: z.string().min(1).default('order_service'),
  CATALOG_CURRENCY: catalogEnvironment.CATALOG_CURRENCY,
});

export type AdminStores = {
  description: string;
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  catalog: CatalogStore;
  close: () => Promise<void>;
};

export const openAdminStores = async (config: z.infer<typeof adminConfigSchema>): Promise<AdminStores> => {
  if (config.MONGODB_URL) {
    const client = await MongoClient.connect(config.MONGODB_URL);
    const db = client.db(config.MONGODB_DATABASE);
    return {
      description: `MongoDB database ${config.MONGODB_DATABASE}`,
      users: await createMongoUserStore(db),
      refreshTokens: await createMongoRefreshTokenStore(db),
      catalog: await createMongoCatalogStore(db),
      close: () => client.close(),
    };
  }
  // SQLite allows this second connection while the service runs: writes wait for each other's lock.
  const db = openDatabase({ path: join(config.DATA_DIR, 'read-store.sqlite') });
  return {
    description: `embedded store in ${config.DATA_DIR}`,
    users: createSqliteUserStore(db),
    refreshTokens: createSqliteRefreshTokenStore(db),
    catalog: createSqliteCatalogStore(db),
    close: async () => db.close(),
  };
};
