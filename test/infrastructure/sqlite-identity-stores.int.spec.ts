import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { withAddressCache } from '../../identity/address-cache.ts';
import { createSqliteRefreshTokenStore } from '../../infrastructure/auth/sqlite-refresh-token-store.ts';
import { createSqliteUserStore } from '../../identity/sqlite-user-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { refreshTokenStoreContract } from '../contracts/refresh-token-store.contract.ts';
import { userStoreContract } from '../contracts/user-store.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'identity-stores-'));
const db = openDatabase({ path: join(dir, 'read-store.sqlite') });
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

userStoreContract('node:sqlite file', async () => createSqliteUserStore(db));
userStoreContract('node:sqlite file, addresses cached', async () =>
  withAddressCache(createSqliteUserStore(db)),
);
refreshTokenStoreContract('node:sqlite file', async () => createSqliteRefreshTokenStore(db));
