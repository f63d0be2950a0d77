import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteCatalogStore } from '../../catalog/sqlite-catalog-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { catalogStoreContract } from '../contracts/catalog-store.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'catalog-store-'));
const db = openDatabase({ path: join(dir, 'read-store.sqlite') });
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

catalogStoreContract('node:sqlite file', async () => createSqliteCatalogStore(db));
