import type { z } from 'zod';

export type EnvironmentVariable = {
  name: string;
  description: string | undefined;
  /** The default as the schema states it; undefined when there is none. */
  defaultValue: string | undefined;
  required: boolean;
};

type Definition = {
  type: string;
  in?: z.ZodType;
  innerType?: z.ZodType;
  defaultValue?: unknown;
  shape?: Record<string, z.ZodType>;
};

const definitionOf = (schema: z.ZodType) => schema._zod.def as unknown as Definition;

/** The object of variables under a process's schema (through its refinements and final transform). */
const objectOf = (schema: z.ZodType): Record<string, z.ZodType> => {
  const definition = definitionOf(schema);
  if (definition.type === 'object' && definition.shape) return definition.shape;
  if (definition.type === 'pipe' && definition.in) return objectOf(definition.in);
  throw new Error(
    `an environment schema must be an object, possibly refined and transformed; got ${definition.type}`,
  );
};

/** What one variable's schema says about it: its description, default and whether it may be left out. */
const describeVariable = (name: string, schema: z.ZodType): EnvironmentVariable => {
  let description: string | undefined;
  let defaultValue: string | undefined;
  let optional = false;
  for (let current: z.ZodType | undefined = schema; current;) {
    description ??= current.description;
    const definition = definitionOf(current);
    if (definition.type === 'default' && defaultValue === undefined) {
      defaultValue = String(definition.defaultValue);
    }
    if (definition.type === 'optional') optional = true;
    current = definition.type === 'pipe' ? definition.in : definition.innerType;
  }
  return { name, description, defaultValue, required: !optional && defaultValue === undefined };
};

/** Every variable a process's environment schema reads, in the schema's order. */
export const environmentVariables = (schema: z.ZodType): EnvironmentVariable[] =>
  Object.entries(objectOf(schema)).map(([name, variable]) => describeVariable(name, variable));

/**
 * The text of `--help`: what the process is (the schema's own description), then each variable it reads
 * with its default and its description, all taken from the zod schema that validates them.
 */
export const environmentHelp = (schema: z.ZodType, usage: string): string => {
  const variables = environmentVariables(schema);
  const width = Math.max(...variables.map(({ name }) => name.length)) + 2;
  const lines = variables.map(({ name, description, defaultValue, required }) => {
    const status = required
      ? 'required'
      : defaultValue === undefined
        ? 'optional'
        : `default ${defaultValue}`;
    return `  ${name.padEnd(width)}${description ?? ''} (${status})`;
  });
  return [
    usage,
    ...(schema.description ? ['', schema.description] : []),
    '',
    'Environment variables (a bad value stops start-up with exit code 78, naming the variable):',
    ...lines,
    '',
  ].join('\n');
};
