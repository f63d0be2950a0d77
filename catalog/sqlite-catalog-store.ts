import type { DatabaseSync } from 'node:sqlite';
import { addMissingColumns } from '../infrastructure/sqlite/add-missing-columns.ts';
import { inWriteTransaction } from '../infrastructure/sqlite/open-database.ts';
import {
  foldForSearch,
  type CatalogStore,
  type Category,
  type Product,
  type ProductSummary,
} from './catalog.ts';
import {
  catalogAfterImport,
  changedSurrogateKeys,
  recordedProducts,
  removedProductIds,
} from './purge-keys.ts';
import { createSqlitePurgeOutbox } from './sqlite-purge-outbox.ts';

const schema = `
  CREATE TABLE IF NOT EXISTS catalog_categories (
    id   TEXT PRIMARY KEY,
    name TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS catalog_products (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    name_folded TEXT    NOT NULL,
    price_minor INTEGER NOT NULL,
    updated_at  TEXT    NOT NULL,
    category_id TEXT    NOT NULL,
    stock       INTEGER,
    recorded_at TEXT
  );
  CREATE INDEX IF NOT EXISTS catalog_products_category ON catalog_products (category_id, id);
  CREATE TABLE IF NOT EXISTS catalog_revision (
    singleton       INTEGER PRIMARY KEY CHECK (singleton = 1),
    revision        INTEGER NOT NULL,
    last_removal_at TEXT
  );
  INSERT OR IGNORE INTO catalog_revision (singleton, revision) VALUES (1, 0);
`;

type ProductRow = {
  id: number;
  name: string;
  price_minor: number;
  updated_at: string;
  category_id: string;
  stock: number | null;
  recorded_at: string | null;
};

const toProduct = (row: ProductRow): Product => ({
  id: row.id,
  name: row.name,
  priceMinor: row.price_minor,
  updatedAt: row.updated_at,
  categoryId: row.category_id,
  stock: row.stock,
  ...(row.recorded_at === null ? {} : { recordedAt: row.recorded_at }),
});

export const createSqliteCatalogStore = (db: DatabaseSync): CatalogStore => {
  db.exec(schema);
  // A read store made before products had stock gets the column (NULL: not tracked), and before the
  // catalogue recorded its own time of a change, that column (NULL: updated_at).
  addMissingColumns(db, 'catalog_products', { stock: 'INTEGER', recorded_at: 'TEXT' });
  addMissingColumns(db, 'catalog_revision', { last_removal_at: 'TEXT' });
  const upsertCategory = db.prepare(
    'INSERT INTO catalog_categories (id, name) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name',
  );
  const upsertProduct = db.prepare(
    `INSERT INTO catalog_products (id, name, name_folded, price_minor, updated_at, category_id, stock, recorded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, name_folded = excluded.name_folded,
       price_minor = excluded.price_minor, updated_at = excluded.updated_at, category_id = excluded.category_id,
       stock = excluded.stock, recorded_at = excluded.recorded_at`,
  );
  const bumpRevision = db.prepare('UPDATE catalog_revision SET revision = revision + 1');
  const lastRemoval = db.prepare('SELECT last_removal_at FROM catalog_revision');
  const recordRemoval = db.prepare('UPDATE catalog_revision SET last_removal_at = ?');
  const products = db.prepare('SELECT * FROM catalog_products ORDER BY id');
  const product = db.prepare('SELECT * FROM catalog_products WHERE id = ?');
  const categories = db.prepare('SELECT * FROM catalog_categories ORDER BY name, id');
  const category = db.prepare('SELECT * FROM catalog_categories WHERE id = ?');
  const inCategory = db.prepare('SELECT id, name FROM catalog_products WHERE category_id = ? ORDER BY id');
  const search = db.prepare(
    'SELECT id, name FROM catalog_products WHERE instr(name_folded, ?) > 0 ORDER BY id LIMIT ? OFFSET ?',
  );
  const searchCount = db.prepare(
    'SELECT count(*) AS n FROM catalog_products WHERE instr(name_folded, ?) > 0',
  );
  const count = db.prepare('SELECT count(*) AS n FROM catalog_products');
  const revision = db.prepare('SELECT revision FROM catalog_revision');
  const purges = createSqlitePurgeOutbox(db);

  return {
    async importCatalog({ products: fromFile, categories: importedCategories }, { replace, at }) {
      return inWriteTransaction(db, () => {
        const before = {
          products: (products.all() as ProductRow[]).map(toProduct),
          categories: categories.all() as Category[],
        };
        const { last_removal_at } = lastRemoval.get() as { last_removal_at: string | null };
        const imported = recordedProducts(before.products, fromFile, {
          at,
          lastRemovalAt: last_removal_at ?? undefined,
        });
        const after = catalogAfterImport(
          before,
          { products: imported, categories: importedCategories },
          { replace },
        );
        const purgeKeys = changedSurrogateKeys(before, after);
        const removed = removedProductIds(before, after);
        if (replace) {
          db.exec('DELETE FROM catalog_products');
          db.exec('DELETE FROM catalog_categories');
        }
        for (const c of importedCategories) upsertCategory.run(c.id, c.name);
        for (const p of imported) {
          upsertProduct.run(
            p.id,
            p.name,
            foldForSearch(p.name),
            p.priceMinor,
            p.updatedAt,
            p.categoryId,
            p.stock,
            p.recordedAt ?? null,
          );
        }
        bumpRevision.run();
        if (removed.length > 0) recordRemoval.run(at.toISOString());
        purges.record(purgeKeys);
        return { purgeKeys, removedProductIds: removed };
      });
    },
    async listProducts() {
      return (products.all() as ProductRow[]).map(toProduct);
    },
    async getProduct(id) {
      const row = product.get(id) as ProductRow | undefined;
      return row ? toProduct(row) : null;
    },
    async listCategories() {
      return categories.all() as Category[];
    },
    async getCategory(id) {
      return (category.get(id) as Category | undefined) ?? null;
    },
    async productsInCategory(categoryId) {
      return inCategory.all(categoryId) as ProductSummary[];
    },
    async searchProducts(query, { offset, limit }) {
      const folded = foldForSearch(query);
      return {
        total: (searchCount.get(folded) as { n: number }).n,
        items: search.all(folded, limit, offset) as ProductSummary[],
      };
    },
    async countProducts() {
      return (count.get() as { n: number }).n;
    },
    async revision() {
      return String((revision.get() as { revision: number }).revision);
    },
    purges: purges.outbox,
  };
};
