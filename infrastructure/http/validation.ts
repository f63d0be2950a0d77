import type { z } from 'zod';
import { fieldErrors } from '../validation/field-errors.ts';
import { validationFailed } from './api-error.ts';

/** parseInput for a schema that looks things up as it parses (async refinements and transforms). */
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
