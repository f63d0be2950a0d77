import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminConfigSchema } from '../../cli/admin-stores.ts';
import { commandApiConfigSchema } from '../../command-api/config.ts';
import { embeddedConfigSchema } from '../../embedded/config.ts';
import { parseConfig } from '../../infrastructure/config/parse-config.ts';
import { environmentHelp, environmentVariables } from '../../infrastructure/process/environment-help.ts';
import { projectionsConfigSchema } from '../../projections/config.ts';
import { queryApiConfigSchema } from '../../query-api/config.ts';
import { dispatcherConfigSchema } from '../../webhook-dispatcher/config.ts';

describe('--help, generated from the zod schema of the environment', () => {
  const schema = z
    .object({
      PORT: z.coerce.number().int().default(3000).describe('Where to listen.'),
      URL: z.url().describe('Where the store is.'),
      NAME: z.string().optional().describe('An optional name.'),
      FLAG: z
        .string()
        .default('false')
        .transform((value) => value === 'true')
        .describe('A flag parsed by a transform.'),
      LIST: z
        .string()
        .transform((value) => value.split(','))
        .optional()
        .describe('A list.'),
    })
    .superRefine(() => undefined)
    .transform((env) => ({ port: env.PORT }))
    .describe('A process for the test.');

  it('reads each variable: its description, its default, and whether it is required', () => {
    expect(environmentVariables(schema)).toEqual([
      { name: 'PORT', description: 'Where to listen.', defaultValue: '3000', required: false },
      { name: 'URL', description: 'Where the store is.', defaultValue: undefined, required: true },
      { name: 'NAME', description: 'An optional name.', defaultValue: undefined, required: false },
      { name: 'FLAG', description: 'A flag parsed by a transform.', defaultValue: 'false', required: false },
      { name: 'LIST', description: 'A list.', defaultValue: undefined, required: false },
    ]);
  });

  it('prints the usage, the process description, and one line per variable', () => {
    const lines = environmentHelp(schema, 'Usage: node x.ts [--help]').split('\n');
    expect(lines[0]).toBe('Usage: node x.ts [--help]');
    expect(lines).toContain('A process for the test.');
    expect(lines).toContain('  PORT  Where to listen. (default 3000)');
    expect(lines).toContain('  URL   Where the store is. (required)');
    expect(lines).toContain('  NAME  An optional name. (optional)');
    expect(lines).toContain('  FLAG  A flag parsed by a transform. (default false)');
  });

  const entryPoints = {
    embedded: embeddedConfigSchema,
    'command-api': commandApiConfigSchema,
    'query-api': queryApiConfigSchema,
    projections: projectionsConfigSchema,
    'webhook-dispatcher': dispatcherConfigSchema,
    admin: adminConfigSchema,
  };

  it.each(Object.entries(entryPoints))('describes every variable %s reads', (_name, entrySchema) => {
    const variables = environmentVariables(entrySchema);
    expect(variables.length).toBeGreaterThan(3);
    expect(variables.filter(({ description }) => !description).map(({ name }) => name)).toEqual([]);
  });

  it('documents the readiness variables with their defaults, and refuses a bad bound', () => {
    const embedded = Object.fromEntries(environmentVariables(embeddedConfigSchema).map((v) => [v.name, v]));
    expect(embedded['READY_MAX_PROJECTION_LAG']?.defaultValue).toBe('1000');
    expect(embedded['READY_CHECK_TIMEOUT_MS']?.defaultValue).toBe('500');
    expect(parseConfig(embeddedConfigSchema, { READY_MAX_PROJECTION_LAG: '5' }).readiness).toEqual({
      checkTimeoutMs: 500,
      maxProjectionLag: 5,
    });
    expect(() => parseConfig(embeddedConfigSchema, { READY_MAX_PROJECTION_LAG: '-1' })).toThrow(
      /READY_MAX_PROJECTION_LAG: /,
    );
  });
});
