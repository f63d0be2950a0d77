/** A product of the catalogue. Read-only through the API; the admin CLI imports changes. */
export type Product = {
  id: number;
  name: string;
  /** Integer minor units of the catalogue currency (configuration, default EUR). */
  priceMinor: number;
  /** ISO 8601 / RFC 3339, UTC: the admin backend's date, shown as it was imported. */
  updatedAt: string;
  /**
   * When this catalogue recorded the product as it is now, where `updatedAt` cannot say it: the import's time
   * for a product dated ahead of the importing clock, or changed (or back after a removal) without its date
   * moving past what a client may hold. What Last-Modified says, so that it never moves on with the clock and
   * never stays put or goes back while the product changes (rules: `recordedProducts`). Absent: `updatedAt`.
   */
  recordedAt?: string;
  categoryId: string;
  /** Units available to order, set by the catalogue import; null when the catalogue does not track them. */
  stock: number | null;
};

/** What Last-Modified says of a product: when this catalogue recorded it, else its own date. */
export const lastModifiedOf = (product: Product): string => product.recordedAt ?? product.updatedAt;

export type Category = { id: string; name: string };

export type ProductSummary = Pick<Product, 'id' | 'name'>;

/** A change of the catalogue that the caches in front have yet to hear of: the Surrogate-Keys to purge. */
export type PendingPurge = {
  id: string;
  keys: string[];
  /** Failed attempts so far. */
  attempts: number;
  /** The cache URLs that took it already: a retry goes to the others only. */
  sentTo: string[];
};

/** What became of an attempt to send a purge. Times are epoch ms. */
export type PurgeSettlement =
  | { status: 'sent'; at: number }
  | { status: 'retry'; dueAt: number; sentTo: string[] }
  | { status: 'abandoned'; at: number; sentTo: string[] };

/**
 * The outbox of cache purges: an import records the keys whose content it changed beside the change
 * itself, and one process sends each record, whichever claims it first.
 */
export type PurgeOutbox = {
  /** Pending purges due by `now` and not leased (or whose lease ran out), oldest first. */
  due(options: { now: number; limit: number }): Promise<PendingPurge[]>;
  /** Takes a due purge for one attempt; false when another process took it. */
  claim(id: string, options: { owner: string; now: number; leaseUntil: number }): Promise<boolean>;
  /** Records the attempt's outcome and ends the lease; false when the lease was lost to another process. */
  settle(id: string, owner: string, settlement: PurgeSettlement): Promise<boolean>;
  /** Forgets purges sent or abandoned before `before`; how many. */
  prune(before: number): Promise<number>;
};

export type CatalogStore = {
  /**
   * Writes products and categories in one go: new ones are added, existing ones (same id) replaced; with
   * `replace`, products and categories absent from the import are removed. Advances the revision, and
   * records a purge of the Surrogate-Keys whose responses changed (none when nothing did): those keys, and
   * the ids of the products it removed (only `replace` removes any), in increasing order. `at` is the time of
   * the import, by the importing clock: what `recordedAt` is set to where a product needs it.
   */
  importCatalog(
    catalog: { products: Product[]; categories: Category[] },
    options: { replace: boolean; at: Date },
  ): Promise<{ purgeKeys: string[]; removedProductIds: number[] }>;
  /** All products, by id. */
  listProducts(): Promise<Product[]>;
  getProduct(id: number): Promise<Product | null>;
  /** All categories, by name. */
  listCategories(): Promise<Category[]>;
  getCategory(id: string): Promise<Category | null>;
  /** The products of a category, by id. */
  productsInCategory(categoryId: string): Promise<ProductSummary[]>;
  /** Products whose name contains the query, case-insensitively, by id; a page of them and the total. */
  searchProducts(
    query: string,
    page: { offset: number; limit: number },
  ): Promise<{ total: number; items: ProductSummary[] }>;
  countProducts(): Promise<number>;
  /** Changes whenever the catalogue does, whoever changed it: what caches compare to know they are stale. */
  revision(): Promise<string>;
  purges: PurgeOutbox;
};

/** Case folding for search: the same on both sides of the comparison, in every adapter. */
export const foldForSearch = (text: string): string => text.normalize('NFKC').toLowerCase();

/** A stable, readable category id from its name: "Kitchen & Dining" -> "kitchen-dining". */
export const categoryIdOf = (name: string): string =>
  name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'uncategorised';
