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
  const targetSessionAttrs = query.get('target_session_attrs') as
    Options<never>['target_session_attrs'] | null;
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
    // postgres.js takes read-write to mean default_transaction_read_only = off, which a hot standby reports
    // too: it would settle on a standby named before the primary, and every append would be refused
    // (25006). libpq's read-write first asks what 'primary' asks postgres.js: not in hot standby.
    ...(targetSessionAttrs === null
      ? {}
      : { target_session_attrs: targetSessionAttrs === 'read-write' ? 'primary' : targetSessionAttrs }),
    connection: {
      application_name: query.get('application_name') ?? applicationName,
      statement_timeout: statementTimeoutMs,
    },
  };
};
