import { moneyToDecimal } from '../../domain/shared/money.ts';
import { jsonRepresentation, type Representation } from '../../infrastructure/http/representation.ts';
import { lastModifiedOf, type CatalogStore } from '../../catalog/catalog.ts';

/** Spec 4.2 and 4.7: detail 300 s everywhere, list 60 s in shared caches, categories are static master data. */
export const productDetailCacheControl = 'public, max-age=300, s-maxage=300';
export const productListCacheControl = 'public, s-maxage=60';
export const categoryListCacheControl = 'public, max-age=3600';
/** Stock moves with every import, so it is kept 30 s, by browsers and shared caches alike. */
export const stockCacheControl = 'public, max-age=30, s-maxage=30';

/**
 * The catalogue's hot responses kept as bytes plus ETag, so a request costs a map lookup rather than a
 * query, a serialization and a hash. The store's revision is checked at most every `refreshIntervalMs`;
 * when it moved (an import, from any process), every kept representation is dropped and rebuilt on demand.
 */
export const createCatalogRepresentations = ({
  store,
  currency,
  refreshIntervalMs,
}: {
  store: CatalogStore;
  currency: string;
  refreshIntervalMs: number;
}) => {
  let revision: string | undefined;
  let checkedAt = -Infinity;
  let checking: Promise<void> | undefined;
  let kept = new Map<string, Promise<Representation | null>>();

  const checkRevision = async () => {
    const current = await store.revision();
    checkedAt = performance.now();
    if (current !== revision) {
      revision = current;
      kept = new Map();
      built = new Map();
    }
  };

  const fresh = async () => {
    if (performance.now() - checkedAt < refreshIntervalMs) return;
    checking ??= checkRevision().finally(() => {
      checking = undefined;
    });
    await checking;
  };

  /** Built representations, for answering without a promise hop while the revision is known to be fresh. */
  let built = new Map<string, Representation | null>();

  /** One build per key and revision, shared by concurrent requests; failures are not kept. */
  const keep = (
    key: string,
    build: () => Promise<Representation | null>,
  ): Representation | null | Promise<Representation | null> => {
    if (performance.now() - checkedAt < refreshIntervalMs) {
      const ready = built.get(key);
      if (ready !== undefined) return ready;
    }
    return keepAsync(key, build);
  };

  const keepAsync = async (key: string, build: () => Promise<Representation | null>) => {
    await fresh();
    let representation = kept.get(key);
    if (!representation) {
      const [cache, done] = [kept, built];
      representation = build().then(
        (result) => {
          done.set(key, result);
          return result;
        },
        (error: unknown) => {
          cache.delete(key);
          throw error;
        },
      );
      cache.set(key, representation);
    }
    return representation;
  };

  return {
    productList: async () =>
      (await keep('products', async () => {
        const products = await store.listProducts();
        return jsonRepresentation(
          products.map(({ id, name }) => ({ id, name })),
          {
            cacheControl: productListCacheControl,
            // Spec 4.2: the list's ETag covers every product's id and update time, not only the bytes sent.
            etagAlsoCovers: products.map((p) => `${p.id}@${p.updatedAt}`),
          },
        );
      }))!,

    product: (id: number) =>
      keep(`product:${id}`, async () => {
        const product = await store.getProduct(id);
        if (!product) return null;
        return jsonRepresentation(
          {
            id: product.id,
            name: product.name,
            price: moneyToDecimal({ amountMinor: product.priceMinor, currency }),
            updatedAt: product.updatedAt,
          },
          { lastModified: lastModifiedOf(product), cacheControl: productDetailCacheControl },
        );
      }),

    /** A product's stock level: available null and tracked false when the catalogue does not track it. */
    stock: (id: number) =>
      keep(`stock:${id}`, async () => {
        const product = await store.getProduct(id);
        if (!product) return null;
        return jsonRepresentation(
          {
            productId: product.id,
            available: product.stock,
            tracked: product.stock !== null,
            updatedAt: product.updatedAt,
          },
          { lastModified: lastModifiedOf(product), cacheControl: stockCacheControl },
        );
      }),

    categoryList: async () =>
      (await keep('categories', async () =>
        jsonRepresentation(await store.listCategories(), { cacheControl: categoryListCacheControl }),
      ))!,

    category: (id: string) =>
      keep(`category:${id}`, async () => {
        const category = await store.getCategory(id);
        if (!category) return null;
        return jsonRepresentation({ ...category, products: await store.productsInCategory(id) });
      }),
  };
};

export type CatalogRepresentations = ReturnType<typeof createCatalogRepresentations>;
