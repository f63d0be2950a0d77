import { userInfo } from 'node:os';
import type { Options } from 'postgres';

export type PostgresLogConnection = {
  /** postgres://user:password@host[:port][,host2[:port]]/database[?target_session_attrs=read-write&...] */
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
};

/**
 * The client's options, all stated here: postgres.js otherwise falls back on PG* environment variables
 * (PGSSL, PGMAX, ...) for whatever an option does not say, and the service's configuration is its own.
 */
export const clientOptions = (
  { url, poolSize, statementTimeoutMs }: PostgresLogConnection,
  applicationName: string,
): Options<Record<string, never>> => {
  const query = new URL(url.replace(/^(postgres(?:ql)?:\/\/(?:[^@/]*@)?)([^/?#]*)/, '$1placeholder'))
    .searchParams;
  const user = /^postgres(?:ql)?:\/\/([^:@/]*)(?::[^@/]*)?@/.exec(url)?.[1];
  const sslmode = query.get('sslmode');
  return {
    max: poolSize,
    ssl:
      sslmode === null || sslmode === 'disable' ? false : (sslmode as 'prefer' | 'require' | 'verify-full'),
    username: user ? decodeURIComponent(user) : userInfo().username,
    connect_timeout: Number(query.get('connect_timeout') ?? 10),
    idle_timeout: 60,
    max_lifetime: 60 * 30,
    prepare: true,
    fetch_types: false,
    onnotice: () => undefined,
    connection: {
      application_name: query.get('application_name') ?? applicationName,
      statement_timeout: statementTimeoutMs,
    },
  };
};
