import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteCatalogStore } from '../../catalog/sqlite-catalog-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { catalogStoreContract } from '../contracts/catalog-store.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'catalog-store-'));
const opened: DatabaseSync[] = [];
afterAll(() => {
  for (const db of opened) db.close();
  rmSync(dir, { recursive: true, force: true });
});

catalogStoreContract('node:sqlite file', async () => {
  const db = openDatabase({ path: join(dir, `${randomUUID()}.sqlite`) });
  opened.push(db);
  return createSqliteCatalogStore(db);
});

describe('a read store written before products had stock', () => {
  it('gets the stock column when opened: its products read as not tracked, and imports set stock', async () => {
    const old = openDatabase({ path: join(dir, 'old-read-store.sqlite') });
    // The catalogue's schema as it was before stock.
    old.exec(`
      CREATE TABLE catalog_categories (id TEXT PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE catalog_products (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_folded TEXT NOT NULL, price_minor INTEGER NOT NULL,
        updated_at TEXT NOT NULL, category_id TEXT NOT NULL
      );
      CREATE TABLE catalog_revision (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), revision INTEGER NOT NULL);
      INSERT INTO catalog_revision VALUES (1, 4);
      INSERT INTO catalog_categories VALUES ('kitchen', 'Kitchen');
      INSERT INTO catalog_products VALUES (1, 'Espresso cup', 'espresso cup', 1999, '2026-11-01T10:00:00.000Z', 'kitchen');
    `);
    const store = createSqliteCatalogStore(old);
    expect(await store.getProduct(1)).toEqual({
      id: 1,
      name: 'Espresso cup',
      priceMinor: 1999,
      updatedAt: '2026-11-01T10:00:00.000Z',
      categoryId: 'kitchen',
      stock: null,
    });
    expect(await store.revision()).toBe('4');

    await store.importCatalog(
      { products: [{ ...(await store.getProduct(1))!, stock: 12 }], categories: [] },
      { replace: false, at: new Date() },
    );
    // A second opening (the admin CLI beside the service) finds the column there and keeps the data.
    const again = createSqliteCatalogStore(old);
    expect(await again.getProduct(1)).toMatchObject({ stock: 12 });
    old.close();
  });
});
