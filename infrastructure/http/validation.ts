import type { Request } from 'express';
import { z } from 'zod';
import { fieldErrors } from '../validation/field-errors.ts';
import { validationFailed } from './api-error.ts';

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

const noParameters = z.strictObject({});

/**
 * For a resource that takes no query parameters: any given is a 400 naming it, so that one resource has
 * one URL (a shared cache keyed on the URL holds one copy, not one per `?anything`). A bare `?` is no
 * parameter. The query string is parsed only when there is one.
 */
export const refuseQueryParameters = (request: Request): void => {
  if (request.url.includes('?')) parseInput(noParameters, request.query, 'query');
};
