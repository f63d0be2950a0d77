import type { z } from 'zod';

/** One problem with one field of some input: a request body, a query string, an import file. */
export type FieldError = { field: string; message: string };

/** Spec section 7 field paths: `items`, `items[0].quantity`, `shippingAddress.country`. */
export const fieldPath = (path: readonly PropertyKey[], root = 'body'): string => {
  let field = '';
  for (const segment of path) {
    if (typeof segment === 'number') field += `[${segment}]`;
    else field += field === '' ? String(segment) : `.${String(segment)}`;
  }
  return field === '' ? root : field;
};

/** Every problem zod found, as field errors (an unknown key is one error per key). */
export const fieldErrors = (error: z.ZodError, root = 'body'): FieldError[] =>
  error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          field: fieldPath([...issue.path, key], root),
          message: root === 'query' ? 'unknown query parameter' : 'unknown field',
        }))
      : [{ field: fieldPath(issue.path, root), message: messageOf(issue, root) }],
  );

/** A query parameter is text, or a list when it is given more than once: say so in words. */
const messageOf = (issue: z.core.$ZodIssue, root: string): string =>
  root === 'query' && issue.code === 'invalid_type' && issue.expected === 'string'
    ? 'must be given once'
    : issue.message;
