/**
 * The keys a catalogue response names in its Surrogate-Key header, one per representation that can change
 * on its own: a cache in front tags what it stores with them, and an import purges exactly the keys whose
 * content changed (purge-keys.ts).
 */
export const surrogateKeys = {
  /** GET /products. */
  productList: 'products',
  /** GET /products/{id} and /products/{id}/stock, their 404s included. */
  product: (id: number) => `product-${id}`,
  /** GET /categories. */
  categoryList: 'categories',
  /** GET /categories/{id}, its 404 included. */
  category: (id: string) => `category-${id}`,
  /** GET /search, whatever the query. */
  search: 'search',
};
