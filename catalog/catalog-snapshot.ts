import { foldForSearch, type CatalogStore, type Product, type ProductSummary } from './catalog.ts';

type Snapshot = {
  revision: string;
  byId: Map<number, Product>;
  /** By id, with the folded name searches compare. */
  searchable: { summary: ProductSummary; folded: string }[];
};

/**
 * The products held in memory and reloaded when the catalogue's revision moves (an import, from any
 * process): placing an order and searching cost no store read. The catalogue is small and read-only to the
 * service, so the whole of it is kept.
 *
 * With `refreshIntervalMs` 0 the revision is read before every answer (an import applies to the very next
 * request); otherwise a timer reads it every `refreshIntervalMs`, and answers never wait on the store: an
 * import applies within that interval, as the kept catalogue responses do. A product the snapshot lacks is
 * looked up in the store at once (it may be new), so only unknown ids cost a read.
 */
export const createCatalogSnapshot = ({
  store,
  refreshIntervalMs,
}: {
  store: Pick<CatalogStore, 'revision' | 'listProducts' | 'getProduct'>;
  refreshIntervalMs: number;
}) => {
  let snapshot: Snapshot | undefined;
  let loading: Promise<Snapshot> | undefined;

  const load = async (): Promise<Snapshot> => {
    // The revision first: an import finishing meanwhile moves it again, and the next check reloads.
    const revision = await store.revision();
    if (snapshot?.revision === revision) return snapshot;
    const products = await store.listProducts();
    snapshot = {
      revision,
      byId: new Map(products.map((product) => [product.id, product])),
      searchable: products.map(({ id, name }) => ({ summary: { id, name }, folded: foldForSearch(name) })),
    };
    return snapshot;
  };
  /** One load at a time, shared by whoever asks meanwhile; a failed one is not kept. */
  const refresh = () =>
    (loading ??= load().finally(() => {
      loading = undefined;
    }));

  const current = async (): Promise<Snapshot> =>
    refreshIntervalMs === 0 || snapshot === undefined ? refresh() : snapshot;

  const timer =
    refreshIntervalMs > 0
      ? setInterval(() => {
          // A failed check keeps the snapshot in hand; the next tick tries again.
          refresh().catch(() => undefined);
        }, refreshIntervalMs).unref()
      : undefined;

  return {
    async getProduct(id: number): Promise<Product | null> {
      const known = (await current()).byId.get(id);
      return known ?? (await store.getProduct(id));
    },
    async searchProducts(query: string, { offset, limit }: { offset: number; limit: number }) {
      const folded = foldForSearch(query);
      const found = (await current()).searchable.filter((product) => product.folded.includes(folded));
      return { total: found.length, items: found.slice(offset, offset + limit).map((p) => p.summary) };
    },
    stop() {
      clearInterval(timer);
    },
  };
};
