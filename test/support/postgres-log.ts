import { randomUUID } from 'node:crypto';
import postgres from 'postgres';

/**
 * The PostgreSQL of scripts/services.sh, for the event log: EVENT_LOG_URL names a database whose role may
 * create others, so each test service or suite gets a log of its own (every follower folds the whole log).
 */
export const requiredEventLogUrl = (): string => {
  const url = process.env['EVENT_LOG_URL'];
  if (!url) {
    throw new Error(
      'EVENT_LOG_URL is not set: start the servers with `scripts/services.sh start` and ' +
        '`eval "$(scripts/services.sh env)"` before `npm run test:integration`.',
    );
  }
  return url;
};

/** A fresh, empty database for one event log, and how to drop it. */
export const createPostgresLogDatabase = async (baseUrl = requiredEventLogUrl()) => {
  const name = `log_${randomUUID().replaceAll('-', '')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
};
