import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * docker-compose.yml and the Dockerfile as Docker would see them, read without Docker: the YAML with its
 * anchors and `<<` merges resolved and `${VAR:-default}` interpolated (from an environment, by default an
 * empty one: `docker compose up` without a .env file), and the image's ENV and CMD.
 */

export type ComposeService = {
  image?: string;
  build?: unknown;
  pull_policy?: string;
  profiles?: string[];
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { target: number; published?: number | string })[];
  volumes?: (string | { type: string; source?: string; target: string; read_only?: boolean })[];
  secrets?: (string | { source: string; target?: string })[];
  depends_on?: string[] | Record<string, { condition: string }>;
  healthcheck?: { test?: string | string[] };
};

export type ComposeFile = {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, unknown>;
  [key: string]: unknown;
};

/** Compose's interpolation: $$, $VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}. */
export const interpolate = (text: string, env: Record<string, string | undefined>): string =>
  text.replace(
    /\$(?:(\$)|([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\})/g,
    (_match, dollar?: string, bare?: string, name?: string, operator?: string, argument = '') => {
      if (dollar) return '$';
      const variable = (bare ?? name) as string;
      const value = env[variable];
      const unset = operator?.startsWith(':') ? !value : value === undefined;
      if (!operator || !unset) return value ?? '';
      if (operator.endsWith('-')) return interpolate(argument, env);
      throw new Error(`${variable} is required by docker-compose.yml: ${argument}`);
    },
  );

const interpolateAll = (value: unknown, env: Record<string, string | undefined>): unknown => {
  if (typeof value === 'string') return interpolate(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolateAll(item, env));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateAll(item, env)]));
  }
  return value;
};

export const readComposeFile = (path: string, env: Record<string, string | undefined> = {}): ComposeFile =>
  interpolateAll(parse(readFileSync(path, 'utf8'), { merge: true }), env) as ComposeFile;

/** A service's environment as its process sees it: the image's ENV, then the service's own, as strings. */
export const serviceEnvironment = (
  service: ComposeService,
  imageEnv: Record<string, string>,
): Record<string, string> => {
  const own = Array.isArray(service.environment)
    ? Object.fromEntries(
        service.environment.map((entry) => {
          const at = entry.indexOf('=');
          return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
        }),
      )
    : Object.fromEntries(
        Object.entries(service.environment ?? {})
          .filter(([, value]) => value !== null)
          .map(([key, value]) => [key, String(value)]),
      );
  return { ...imageEnv, ...own };
};

export type Mount = {
  source?: string | undefined;
  target: string;
  readOnly: boolean;
  kind: 'volume' | 'bind' | 'secret';
};

/** Where a service's volumes and secrets appear inside its container. */
export const mountsOf = (service: ComposeService): Mount[] => [
  ...(service.volumes ?? []).map((volume): Mount => {
    if (typeof volume !== 'string') {
      return {
        source: volume.source,
        target: volume.target,
        readOnly: volume.read_only === true,
        kind: volume.type === 'bind' ? 'bind' : 'volume',
      };
    }
    const [source, target, mode] = volume.split(':');
    if (target === undefined) return { target: source as string, readOnly: false, kind: 'volume' };
    const kind = /^[./~]/.test(source as string) ? 'bind' : 'volume';
    return { source, target, readOnly: (mode ?? '').split(',').includes('ro'), kind };
  }),
  ...(service.secrets ?? []).map((secret): Mount =>
    typeof secret === 'string'
      ? { source: secret, target: `/run/secrets/${secret}`, readOnly: true, kind: 'secret' }
      : {
          source: secret.source,
          target: secret.target?.startsWith('/')
            ? secret.target
            : `/run/secrets/${secret.target ?? secret.source}`,
          readOnly: true,
          kind: 'secret',
        },
  ),
];

/** The container ports a service publishes ("3001:3001", "127.0.0.1:3001:3001/tcp", 3001, {target}). */
export const containerPortsOf = (service: ComposeService): number[] =>
  (service.ports ?? []).map((port) => {
    if (typeof port === 'number') return port;
    if (typeof port === 'object') return port.target;
    const withoutProtocol = port.split('/')[0] as string;
    return Number(withoutProtocol.split(':').at(-1));
  });

export const dependenciesOf = (service: ComposeService): string[] =>
  Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});

/** The hosts and ports of a postgres:// URL, which may name several (host1:5432,host2:5432). */
export const postgresHostsOf = (url: string): { host: string; port: number }[] => {
  const authority = url.replace(/^postgres(ql)?:\/\//, '').split(/[/?]/)[0] ?? '';
  return authority
    .slice(authority.lastIndexOf('@') + 1)
    .split(',')
    .map((entry) => {
      const [, host = '', port] = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(entry) ?? [];
      return { host, port: Number(port ?? 5432) };
    });
};

export const commandOf = (service: ComposeService, imageCmd: string[]): string[] =>
  service.command === undefined
    ? imageCmd
    : typeof service.command === 'string'
      ? service.command.split(/\s+/).filter(Boolean)
      : service.command;

/** The instructions of a Dockerfile, continuation lines joined, comments dropped. */
const instructions = (dockerfile: string): { keyword: string; rest: string }[] =>
  dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), rest: rest.join(' ') };
    });

/** The image's ENV (KEY=value form) and its CMD (exec form), as docker build records them. */
export const readDockerfile = (path: string): { env: Record<string, string>; cmd: string[] } => {
  const env: Record<string, string> = {};
  let cmd: string[] = [];
  for (const { keyword, rest } of instructions(readFileSync(path, 'utf8'))) {
    if (keyword === 'ENV') {
      for (const pair of rest.match(/[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|\S*)/g) ?? []) {
        const at = pair.indexOf('=');
        env[pair.slice(0, at)] = pair.slice(at + 1).replace(/^"(.*)"$/, '$1');
      }
    }
    if (keyword === 'CMD') cmd = JSON.parse(rest) as string[];
  }
  return { env, cmd };
};
