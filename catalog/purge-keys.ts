import { lastModifiedOf, type Category, type Product } from './catalog.ts';
import { surrogateKeys } from './surrogate-keys.ts';

export type CatalogContents = { products: readonly Product[]; categories: readonly Category[] };

/**
 * The catalogue an import leaves, as every store applies it: imported products and categories replace
 * those of the same id and the others are added; with `replace`, only the imported ones remain.
 */
export const catalogAfterImport = (
  before: CatalogContents,
  imported: CatalogContents,
  { replace }: { replace: boolean },
): CatalogContents => {
  if (replace) return imported;
  const merged = <T extends { id: unknown }>(kept: readonly T[], added: readonly T[]) => [
    ...new Map([...kept, ...added].map((item) => [item.id, item])).values(),
  ];
  return {
    products: merged(before.products, imported.products),
    categories: merged(before.categories, imported.categories),
  };
};

/** The ids of the products an import removed (present before, absent after), in increasing order. */
export const removedProductIds = (before: CatalogContents, after: CatalogContents): number[] => {
  const kept = new Set(after.products.map((p) => p.id));
  return before.products
    .map((p) => p.id)
    .filter((id) => !kept.has(id))
    .sort((a, b) => a - b);
};

/** What a product's own responses (its detail and its stock) show, as a comparable string. */
const shownOf = (p: Product): string => JSON.stringify([p.name, p.priceMinor, p.updatedAt, p.stock]);

const secondOf = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * The imported products as a store records them, with what their Last-Modified is to say. An unchanged
 * product keeps what was recorded of it, so importing the same file again changes nothing. A new or changed
 * one is dated by its `updatedAt`, unless that is after the import's time `at` (a clock ahead of the
 * importing one) or not in a later second than what a client may hold of the product: its last
 * Last-Modified, or for a product the catalogue lacks, the last import that removed products (it may be one
 * of them, back). Then it is recorded at `at`, as a client's If-Modified-Since would otherwise miss the change.
 */
export const recordedProducts = (
  before: readonly Product[],
  imported: readonly Product[],
  { at, lastRemovalAt }: { at: Date; lastRemovalAt: string | undefined },
): Product[] => {
  const previous = new Map(before.map((p) => [p.id, p]));
  return imported.map(({ recordedAt: _notTheFilesToSay, ...product }) => {
    const was = previous.get(product.id);
    if (was && shownOf(was) === shownOf(product)) {
      return was.recordedAt === undefined ? product : { ...product, recordedAt: was.recordedAt };
    }
    const mayHoldSince = was ? lastModifiedOf(was) : lastRemovalAt;
    const datedByItself =
      Date.parse(product.updatedAt) <= at.getTime() &&
      (mayHoldSince === undefined || secondOf(product.updatedAt) > secondOf(mayHoldSince));
    return datedByItself ? product : { ...product, recordedAt: at.toISOString() };
  });
};

const byId = <T extends { id: number | string }>(items: readonly T[]) =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/**
 * What each cached representation shows, reduced to a comparable string (null: the resource is absent,
 * a 404). Two catalogues give the same string for a key exactly when the responses under it are the same.
 */
const contentsOf = ({ products, categories }: CatalogContents): Map<string, string | null> => {
  const sortedProducts = byId(products);
  const contents = new Map<string, string | null>();
  // GET /products: ids and names; its ETag also covers every product's updatedAt.
  contents.set(
    surrogateKeys.productList,
    JSON.stringify(sortedProducts.map((p) => [p.id, p.name, p.updatedAt])),
  );
  // GET /products/{id} (name, price, updatedAt) and its /stock (stock, updatedAt). The category is not shown.
  for (const p of sortedProducts) {
    contents.set(surrogateKeys.product(p.id), shownOf(p));
  }
  // GET /categories: ids and names (ordered by name, so by the set itself).
  contents.set(surrogateKeys.categoryList, JSON.stringify(byId(categories).map((c) => [c.id, c.name])));
  // GET /categories/{id}: its name and its products' ids and names.
  for (const category of categories) {
    const members = sortedProducts.filter((p) => p.categoryId === category.id).map((p) => [p.id, p.name]);
    contents.set(surrogateKeys.category(category.id), JSON.stringify([category.name, members]));
  }
  // GET /search: which products match a query and what a page shows depend on ids and names only.
  contents.set(surrogateKeys.search, JSON.stringify(sortedProducts.map((p) => [p.id, p.name])));
  return contents;
};

/**
 * The Surrogate-Keys whose responses differ between two catalogues: what an import purges. A key present
 * on one side only (a product added or removed) differs, since its absence is a cached 404. An unchanged
 * product's key is never among them.
 */
export const changedSurrogateKeys = (before: CatalogContents, after: CatalogContents): string[] => {
  const [was, is] = [contentsOf(before), contentsOf(after)];
  const keys = new Set([...was.keys(), ...is.keys()]);
  return [...keys].filter((key) => (was.get(key) ?? null) !== (is.get(key) ?? null)).sort();
};
