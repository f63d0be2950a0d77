/**
 * What EVENT_LOG_URL may say, checked before anything connects: the parameters the PostgreSQL client
 * (postgres.js) honours, and nothing else. libpq accepts many more (sslcert, passfile, gssencmode, ...);
 * one this client would silently ignore or pass to the server as a setting is refused at start instead.
 */
const honoured: Record<string, (value: string) => boolean> = {
  // The read-write host of those the URL names: what a failover needs (see docs/distributed.md).
  target_session_attrs: (value) =>
    ['read-write', 'primary', 'read-only', 'standby', 'prefer-standby'].includes(value),
  // verify-full checks the server's certificate against Node's trusted roots (NODE_EXTRA_CA_CERTS adds one).
  sslmode: (value) => ['disable', 'prefer', 'require', 'verify-full'].includes(value),
  application_name: (value) => value.length > 0 && value.length < 64,
  connect_timeout: (value) => /^\d{1,4}$/.test(value),
};

/** The problems of a postgres:// URL as an event log address, each naming the part (never the password). */
export const postgresLogUrlProblems = (text: string): string[] => {
  let url: URL;
  try {
    // Several hosts (host1:5432,host2:5432) are not a valid URL host: parse with the first alone.
    url = new URL(text.replace(/^(postgres(?:ql)?:\/\/(?:[^@/]*@)?)([^/?#]*)/, '$1placeholder'));
  } catch {
    return ['is not a URL'];
  }
  if (!/^postgres(ql)?:$/.test(url.protocol)) return ['must be a postgres:// or postgresql:// URL'];
  const problems: string[] = [];
  const hosts = /^postgres(?:ql)?:\/\/(?:[^@/]*@)?([^/?#]*)/.exec(text)?.[1] ?? '';
  for (const host of hosts.split(',')) {
    if (!/^(\[[0-9a-fA-F:]+\]|[^:[\]]+)(:\d{1,5})?$/.test(host))
      problems.push('names a host that is not host[:port]');
  }
  if (url.pathname.length <= 1) problems.push('names no database (postgres://user@host:5432/DATABASE)');
  for (const [name, value] of url.searchParams) {
    const accepts = honoured[name];
    if (!accepts) problems.push(`has the parameter ${name}, which the PostgreSQL log cannot honour`);
    else if (!accepts(value)) problems.push(`has an unsupported value for ${name}`);
  }
  return problems;
};
