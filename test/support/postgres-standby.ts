import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { freePort, pollUntil } from './embedded-child.ts';

/** Debian's PostgreSQL server binaries: POSTGRES_BIN_DIR, else the newest /usr/lib/postgresql/N/bin. */
const postgresBinaries = () => {
  const configured = process.env['POSTGRES_BIN_DIR'];
  if (configured) return configured;
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((version) => existsSync(`/usr/lib/postgresql/${version}/bin/pg_basebackup`))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  if (versions.length === 0) throw new Error('no PostgreSQL server binaries (apt-get install postgresql)');
  return `/usr/lib/postgresql/${versions.at(-1)}/bin`;
};

/** PostgreSQL refuses to run as root: then as Debian's `postgres` user, as scripts/services.sh does. */
const asClusterOwner = (command: string, args: string[]): [string, string[]] =>
  process.getuid?.() === 0
    ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]]
    : [command, args];

/**
 * A hot standby of the PostgreSQL at `primaryUrl` (the test cluster of scripts/services.sh, whose trust
 * authentication lets the test take its superuser's name): a base backup in a fresh directory, streaming
 * from the primary, on a free loopback port. `promote()` makes it a primary of its own (the copy diverges;
 * the original is untouched), as a failover would.
 */
export const startStandbyOf = async (primaryUrl: string) => {
  const bin = postgresBinaries();
  const primary = new URL(primaryUrl);
  const probe = postgres(primaryUrl, { max: 1, onnotice: () => undefined });
  const [row] = await probe`SELECT rolname FROM pg_roles WHERE rolsuper AND rolreplication LIMIT 1`;
  await probe.end();
  const superuser = String(row!['rolname']);
  const dir = mkdtempSync(join(tmpdir(), 'log-standby-'));
  if (process.getuid?.() === 0) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
  const run = (command: string, args: string[]) => {
    const [file, argv] = asClusterOwner(join(bin, command), args);
    execFileSync(file, argv, { stdio: 'pipe' });
  };
  run('pg_basebackup', [
    '-d',
    `host=${primary.hostname} port=${primary.port} user=${superuser} application_name=test_standby`,
    '-D',
    join(dir, 'data'),
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
  ]);
  const port = await freePort();
  const [file, argv] = asClusterOwner(join(bin, 'postgres'), [
    '-D',
    join(dir, 'data'),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `port=${port}`,
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    'hot_standby=on',
    // A hot standby needs at least the primary's (scripts/services.sh runs it with 400).
    '-c',
    'max_connections=1000',
  ]);
  const server = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  server.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const admin = postgres({
    host: '127.0.0.1',
    port,
    database: 'postgres',
    username: superuser,
    max: 1,
    onnotice: () => undefined,
  });
  await pollUntil(
    'the standby to accept connections',
    async () => {
      if (server.exitCode !== null) throw new Error(`the standby exited:\n${output}`);
      try {
        const [state] = await admin`SELECT pg_is_in_recovery() AS standby`;
        return state!['standby'] === true;
      } catch {
        return false;
      }
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return {
    port,
    /** Whether the standby has replayed every event of `stream` the primary has (count given). */
    async has(database: string, stream: string, count: number) {
      const reader = postgres({
        host: '127.0.0.1',
        port,
        database,
        username: superuser,
        max: 1,
        onnotice: () => undefined,
      });
      try {
        const [found] =
          await reader`SELECT count(*)::int AS n FROM event_log.events WHERE stream_id = ${stream}`;
        return found!['n'] === count;
      } finally {
        await reader.end();
      }
    },
    async promote() {
      await admin`SELECT pg_promote(true, 30)`;
    },
    async stop() {
      await admin.end();
      server.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
