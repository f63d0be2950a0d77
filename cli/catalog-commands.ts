import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { CatalogFileError, readCatalogFile } from '../catalog/catalog-file.ts';
import type { CommandContext } from './user-commands.ts';
import { UsageError } from './user-commands.ts';
import { counted } from './counted.ts';

/** A catalogue file that cannot be imported: the CLI prints why, and exits 65 (EX_DATAERR). */
export class DataError extends Error {
  readonly kind = 'data';
}

/** What the service serving the catalogue will purge from the caches in front (its CACHE_PURGE_URLS). */
const purgeLine = (keys: string[]) => {
  if (keys.length === 0) return 'no response changed: nothing to purge from caches';
  const shown = keys.slice(0, 10).join(' ');
  return `responses changed, to be purged from caches by Surrogate-Key: ${shown}${keys.length > 10 ? ` (and ${keys.length - 10} more)` : ''}`;
};

/** What --replace removed, never silently: a file of one product leaves one product. */
const removedLine = (ids: number[]) =>
  `removed ${counted(ids.length, 'product')} the file does not list: ${ids.slice(0, 10).join(' ')}` +
  (ids.length > 10 ? ` (and ${ids.length - 10} more)` : '');

export const catalogCommands: Record<string, (args: string[], context: CommandContext) => Promise<void>> = {
  async 'catalog:import'(args, context) {
    let parsed;
    try {
      parsed = parseArgs({
        args,
        options: { replace: { type: 'boolean' } },
        allowPositionals: true,
        strict: true,
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const [file, ...extra] = parsed.positionals;
    if (!file || extra.length > 0) throw new UsageError('catalog:import takes one FILE');

    let json: unknown;
    try {
      json = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new DataError(`cannot read ${file} as JSON: ${(error as Error).message}`);
    }
    const now = context.clock.now();
    let catalog;
    try {
      catalog = readCatalogFile(json, context.catalogCurrency, { now });
    } catch (error) {
      if (error instanceof CatalogFileError) throw new DataError(error.message);
      throw error;
    }
    const replace = parsed.values.replace === true;
    const { purgeKeys, removedProductIds } = await context.stores.catalog.importCatalog(catalog, {
      replace,
      at: now,
    });
    context.out(
      `imported ${counted(catalog.products.length, 'product')} in ${counted(catalog.categories.length, 'category', 'categories')} ` +
        `(${replace ? 'replacing the catalogue' : 'added or updated'}) into the ${context.stores.description}`,
    );
    if (removedProductIds.length > 0) context.out(removedLine(removedProductIds));
    context.out(purgeLine(purgeKeys));
  },
};
