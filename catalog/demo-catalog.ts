import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Clock } from '../infrastructure/clock.ts';
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

/** A process's start: the demo catalogue into an empty store when the configuration asks; the store back. */
export const seedDemoCatalogIfEmpty = async (
  store: CatalogStore,
  config: { seedDemo: boolean; currency: string },
  clock: Clock,
  logger: Logger,
): Promise<CatalogStore> => {
  if (config.seedDemo && (await seedDemoCatalog(store, config.currency, clock.now()))) {
    logger.info('imported the demo catalogue into the empty catalogue');
  }
  return store;
};
