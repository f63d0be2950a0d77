/**
 * How an error appears in the log: its type, message, code and stack, and the same of its causes. Nothing
 * else: errors of the stores, drivers and body parsers carry extra fields (a request body, a document, a
 * filter, a duplicate key's value) that may hold personal data or secrets, so no other field is copied.
 * A thrown value that is not an Error is described by its type only. Causes and the errors of an
 * AggregateError (a connection refused on every address) are kept the same way, a few levels deep.
 */
export const safeError = (error: unknown, depth = 0): Record<string, unknown> => {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    stack: error.stack,
    ...(error.cause !== undefined && depth < 3 ? { cause: safeError(error.cause, depth + 1) } : {}),
    ...(error instanceof AggregateError && depth < 3
      ? { errors: (error.errors as unknown[]).slice(0, 5).map((inner) => safeError(inner, depth + 1)) }
      : {}),
  };
};
