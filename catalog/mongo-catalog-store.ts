import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { foldForSearch, type CatalogStore, type Product } from './catalog.ts';
import { createMongoPurgeOutbox } from './mongo-purge-outbox.ts';
import {
  catalogAfterImport,
  changedSurrogateKeys,
  recordedProducts,
  removedProductIds,
} from './purge-keys.ts';

/** `stock` is absent from documents written before products had stock: not tracked. */
type ProductDocument = Omit<Product, 'id' | 'stock'> & {
  _id: number;
  nameFolded: string;
  stock?: number | null;
};
type CategoryDocument = { _id: string; name: string };
/** `lastRemovalAt`: the time of the last import that removed products (absent: none did). */
type RevisionDocument = { _id: 'catalog'; revision: string; lastRemovalAt?: string };

/**
 * Replacements per bulk write. FerretDB 1.24 on PostgreSQL stops answering for good (its pool of 50
 * connections held by one bulk write) when one bulk write replaces about 50 existing documents or more; an
 * import of a whole catalogue is written in slices that stay well below that.
 */
const maxWritesPerBulk = 20;

/** Whether a product as stored is the product as it is to be stored: then the import need not write it. */
const sameProduct = (stored: Product | undefined, product: Product): boolean =>
  stored !== undefined &&
  stored.name === product.name &&
  stored.priceMinor === product.priceMinor &&
  stored.updatedAt === product.updatedAt &&
  stored.categoryId === product.categoryId &&
  stored.stock === product.stock &&
  stored.recordedAt === product.recordedAt;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const toProduct = ({ _id, nameFolded: _folded, stock, ...product }: ProductDocument): Product => ({
  id: _id,
  ...product,
  stock: stock ?? null,
});

/**
 * The catalogue in MongoDB. An import is bulk upserts (no transaction: FerretDB has none), then a new
 * revision: readers may see a half-applied import for its duration, never a stale revision after it.
 */
export const createMongoCatalogStore = async (db: Db): Promise<CatalogStore> => {
  const products = db.collection<ProductDocument>('catalog_products');
  const categories = db.collection<CategoryDocument>('catalog_categories');
  const revisions = db.collection<RevisionDocument>('catalog_revision');
  await products.createIndex({ categoryId: 1, _id: 1 }, { name: 'category' });
  const purges = await createMongoPurgeOutbox(db);
  const listProducts = async () => (await products.find().sort({ _id: 1 }).toArray()).map(toProduct);
  const listCategories = async () => {
    const documents = await categories.find().sort({ name: 1, _id: 1 }).toArray();
    return documents.map(({ _id, name }) => ({ id: _id, name }));
  };

  return {
    async importCatalog({ products: fromFile, categories: importedCategories }, { replace, at }) {
      const before = { products: await listProducts(), categories: await listCategories() };
      const { lastRemovalAt } = (await revisions.findOne({ _id: 'catalog' })) ?? {};
      const imported = recordedProducts(before.products, fromFile, { at, lastRemovalAt });
      const after = catalogAfterImport(
        before,
        { products: imported, categories: importedCategories },
        { replace },
      );
      const purgeKeys = changedSurrogateKeys(before, after);
      const removed = removedProductIds(before, after);
      const purge = await purges.prepare(purgeKeys);
      if (importedCategories.length > 0) {
        await categories.bulkWrite(
          importedCategories.map((c) => ({
            replaceOne: { filter: { _id: c.id }, replacement: { name: c.name }, upsert: true },
          })),
          { ordered: false },
        );
      }
      const stored = new Map(before.products.map((p) => [p.id, p]));
      const changed = imported.filter((p) => !sameProduct(stored.get(p.id), p));
      for (let start = 0; start < changed.length; start += maxWritesPerBulk) {
        await products.bulkWrite(
          changed.slice(start, start + maxWritesPerBulk).map(({ id, ...p }) => ({
            replaceOne: {
              filter: { _id: id },
              replacement: { ...p, nameFolded: foldForSearch(p.name) },
              upsert: true,
            },
          })),
          { ordered: false },
        );
      }
      if (replace) {
        await products.deleteMany({ _id: { $nin: imported.map((p) => p.id) } });
        await categories.deleteMany({ _id: { $nin: importedCategories.map((c) => c.id) } });
      }
      await revisions.updateOne(
        { _id: 'catalog' },
        {
          $set: {
            revision: randomUUID(),
            ...(removed.length > 0 ? { lastRemovalAt: at.toISOString() } : {}),
          },
        },
        { upsert: true },
      );
      await purges.release(purge);
      return { purgeKeys, removedProductIds: removed };
    },
    listProducts,
    async getProduct(id) {
      const document = await products.findOne({ _id: id });
      return document ? toProduct(document) : null;
    },
    listCategories,
    async getCategory(id) {
      const document = await categories.findOne({ _id: id });
      return document ? { id: document._id, name: document.name } : null;
    },
    async productsInCategory(categoryId) {
      const documents = await products
        .find({ categoryId }, { projection: { name: 1 } })
        .sort({ _id: 1 })
        .toArray();
      return documents.map(({ _id, name }) => ({ id: _id, name }));
    },
    async searchProducts(query, { offset, limit }) {
      const filter = { nameFolded: { $regex: escapeRegex(foldForSearch(query)) } };
      const [total, documents] = await Promise.all([
        products.countDocuments(filter),
        products
          .find(filter, { projection: { name: 1 } })
          .sort({ _id: 1 })
          .skip(offset)
          .limit(limit)
          .toArray(),
      ]);
      return { total, items: documents.map(({ _id, name }) => ({ id: _id, name })) };
    },
    async countProducts() {
      return products.countDocuments();
    },
    async revision() {
      return (await revisions.findOne({ _id: 'catalog' }))?.revision ?? 'empty';
    },
    purges: purges.outbox,
  };
};
