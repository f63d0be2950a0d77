import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteDataKeyStore } from '../../infrastructure/personal-data/sqlite-data-key-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { dataKeyStoreContract } from '../contracts/data-key-store.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'data-keys-'));
const db = openDatabase({ path: join(dir, 'read-store.sqlite') });
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

dataKeyStoreContract('node:sqlite file', async () => createSqliteDataKeyStore(db));
