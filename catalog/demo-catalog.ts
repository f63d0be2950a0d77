import { readFileSync } from 'node:fs';
import type { CatalogStore } from './catalog.ts';
import { readCatalogFile } from './catalog-file.ts';

const demoCatalogPath = new URL('./demo-catalog.json', import.meta.url);

/** Imports the demo catalogue (60 products, 6 categories) into an empty store; true when it did. */
export const seedDemoCatalog = async (store: CatalogStore, currency: string, now: Date): Promise<boolean> => {
  if ((await store.countProducts()) > 0) return false;
  const catalog = readCatalogFile(JSON.parse(readFileSync(demoCatalogPath, 'utf8')), currency);
  await store.importCatalog(catalog, { replace: false, at: now });
  return true;
};
