import { createMongoRefreshTokenStore } from '../../infrastructure/auth/mongo-refresh-token-store.ts';
import { createMongoUserStore } from '../../identity/mongo-user-store.ts';
import { refreshTokenStoreContract } from '../contracts/refresh-token-store.contract.ts';
import { withAddressCache } from '../../identity/address-cache.ts';
import { userStoreContract } from '../contracts/user-store.contract.ts';
import { freshMongoDatabase } from '../support/mongo.ts';

const database = freshMongoDatabase();

userStoreContract('MongoDB (FerretDB)', async () => createMongoUserStore(await database()));
userStoreContract('MongoDB (FerretDB), addresses cached', async () =>
  withAddressCache(await createMongoUserStore(await database())),
);
refreshTokenStoreContract('MongoDB (FerretDB)', async () => createMongoRefreshTokenStore(await database()));
