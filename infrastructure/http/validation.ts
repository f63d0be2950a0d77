import type { z } from 'zod';
import { validationFailed, type FieldError } from './api-error.ts';

/** Spec section 7 field paths: `items`, `items[0].quantity`, `shippingAddress.country`. */
export const fieldPath = (path: readonly PropertyKey[], root = 'body'): string => {
  let field = '';
  for (const segment of path) {
    if (typeof segment === 'number') field += `[${segment}]`;
    else field += field === '' ? String(segment) : `.${String(segment)}`;
  }
  return field === '' ? root : field;
};

export const fieldErrors = (error: z.ZodError, root = 'body'): FieldError[] =>
  error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          field: fieldPath([...issue.path, key], root),
          message: root === 'query' ? 'unknown query parameter' : 'unknown field',
        }))
      : [{ field: fieldPath(issue.path, root), message: issue.message }],
  );

/** parseInput for a schema that looks things up as it parses (async refinements and transforms). */
export const parseInputAsync = async <Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  root = 'body',
): Promise<z.infer<Schema>> => {
  const result = await schema.safeParseAsync(input);
  if (result.success) return result.data;
  throw validationFailed(fieldErrors(result.error, root));
};

/** Parses untrusted input, or throws a 400 validation-failed listing every problem at once. */
export const parseInput = <Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  root = 'body',
): z.infer<Schema> => {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationFailed(fieldErrors(result.error, root));
};
