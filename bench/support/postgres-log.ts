// The PostgreSQL of scripts/services.sh for the event log (EVENT_LOG_URL): its role may create databases, so
// every benchmark's log gets a fresh one, dropped after (each follower folds the whole log).
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';

/** EVENT_LOG_URL; exits with what to do when it is not set. */
export const requiredEventLogUrl = (): string => {
  const url = process.env['EVENT_LOG_URL'];
  if (url) return url;
  process.stderr.write(
    'The PostgreSQL event log needs EVENT_LOG_URL (a role that may CREATE DATABASE). Start the servers and\n' +
      'export their addresses first:\n' +
      '  scripts/services.sh start\n' +
      '  eval "$(scripts/services.sh env)"\n',
  );
  process.exit(78);
};

export type LogDatabase = { url: string; name: string; drop: () => Promise<void> };

/** A fresh, empty database beside the one `baseUrl` names, and how to drop it. */
export const createLogDatabase = async (baseUrl: string): Promise<LogDatabase> => {
  const name = `bench_log_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
};
