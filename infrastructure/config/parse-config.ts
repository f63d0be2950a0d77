import type { z } from 'zod';

export class ConfigurationError extends Error {
  readonly kind = 'configuration-error';
}

/**
 * Parses environment variables with a zod schema, once, at start. The error names every bad variable
 * and what was expected, never the value it had (it may be a secret).
 */
export const parseConfig = <Schema extends z.ZodType>(
  schema: Schema,
  env: Record<string, string | undefined>,
): z.infer<Schema> => {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`,
  );
  throw new ConfigurationError(`Invalid configuration:\n${problems.join('\n')}`);
};
