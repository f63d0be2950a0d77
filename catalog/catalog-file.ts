import { z } from 'zod';
import { InvariantViolationError } from '../domain/shared/errors.ts';
import { minorUnitDigits, moneyFromDecimal } from '../domain/shared/money.ts';
import { fieldErrors, fieldPath } from '../infrastructure/validation/field-errors.ts';
import { categoryIdOf, type Category, type Product } from './catalog.ts';

const fitsCurrency = (price: number, currency: string) => {
  try {
    moneyFromDecimal(price, currency);
    return true;
  } catch (error) {
    if (error instanceof InvariantViolationError) return false;
    throw error;
  }
};

/**
 * The import format: `{"products": [...]}` (or the bare array), each `{id, name, price, updatedAt, category}`
 * and optionally `stock` (absent: the product's stock is not tracked).
 */
const catalogFile = (currency: string) =>
  z.strictObject(
    {
      products: z.array(
        z.strictObject({
          id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
          name: z.string().trim().min(1).max(200),
          price: z
            .number()
            .nonnegative()
            .finite()
            .refine((price) => fitsCurrency(price, currency), {
              error: `${currency} has at most ${minorUnitDigits(currency)} decimal places`,
            }),
          updatedAt: z.iso.datetime({ offset: true }),
          category: z.string().trim().min(1).max(100),
          stock: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
        }),
      ),
    },
    { error: 'expected {"products": [...]} or an array of products' },
  );

export class CatalogFileError extends Error {
  readonly kind = 'catalog-file';
  readonly problems: { field: string; message: string }[];
  constructor(problems: { field: string; message: string }[]) {
    super(`the catalogue file is invalid:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
    this.problems = problems;
  }
}

/** How far ahead of the importing machine's clock an updatedAt may be: clocks differ, a little. */
export const maxFutureUpdatedAtMs = 5 * 60_000;

/**
 * Checks a parsed catalogue file and turns it into the store's products and categories. Given `now`, an
 * updatedAt more than 5 minutes after it is refused: Last-Modified would otherwise claim a future change.
 */
export const readCatalogFile = (
  input: unknown,
  currency: string,
  { now }: { now?: Date } = {},
): { products: Product[]; categories: Category[] } => {
  const parsed = catalogFile(currency).safeParse(Array.isArray(input) ? { products: input } : input);
  if (!parsed.success) throw new CatalogFileError(fieldErrors(parsed.error, 'file'));
  const entries = parsed.data.products;

  const problems: { field: string; message: string }[] = [];
  const seenIds = new Set<number>();
  const categories = new Map<string, Category>();
  const products: Product[] = [];
  entries.forEach((entry, index) => {
    const at = (field: string) => fieldPath(['products', index, field]);
    if (seenIds.has(entry.id))
      problems.push({ field: at('id'), message: `duplicate product id ${entry.id}` });
    seenIds.add(entry.id);
    const categoryId = categoryIdOf(entry.category);
    const known = categories.get(categoryId);
    if (known && known.name !== entry.category) {
      problems.push({
        field: at('category'),
        message: `"${entry.category}" and "${known.name}" share the id ${categoryId}`,
      });
    }
    categories.set(categoryId, { id: categoryId, name: entry.category });
    const updatedAt = new Date(entry.updatedAt);
    if (now && updatedAt.getTime() > now.getTime() + maxFutureUpdatedAtMs) {
      problems.push({
        field: at('updatedAt'),
        message: `product ${entry.id}: ${updatedAt.toISOString()} is more than 5 minutes in the future`,
      });
    }
    products.push({
      id: entry.id,
      name: entry.name,
      priceMinor: moneyFromDecimal(entry.price, currency).amountMinor,
      updatedAt: updatedAt.toISOString(),
      categoryId,
      stock: entry.stock ?? null,
    });
  });
  if (problems.length > 0) throw new CatalogFileError(problems);
  return { products, categories: [...categories.values()] };
};
