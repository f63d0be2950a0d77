import { describe, expect, it } from 'vitest';
import { commandApiConfigSchema } from '../../command-api/config.ts';
import { ConfigurationError, parseConfig } from '../../infrastructure/config/parse-config.ts';
import { projectionsConfigSchema } from '../../projections/config.ts';
import { queryApiConfigSchema } from '../../query-api/config.ts';
import { dispatcherConfigSchema } from '../../webhook-dispatcher/config.ts';

const stores = {
  EVENT_LOG_FILE: '/var/lib/order-service/events.sqlite',
  MONGODB_URL: 'mongodb://db.internal:27017/',
  KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9092',
};
const keys = {
  JWT_PRIVATE_KEY_FILE: '/keys/jwt.pem',
  WEBHOOK_SECRET_KEY_FILE: '/keys/webhook',
  PERSONAL_DATA_KEY_FILE: '/keys/personal-data',
  CONSISTENCY_TOKEN_KEY_FILE: '/keys/consistency-token',
};
const api = { ...stores, ...keys, PUBLIC_BASE_URL: 'https://orders.shop.example/' };

const problemsOf = (parse: () => unknown): string => {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('distributed mode configuration', () => {
  it('builds each process from its variables, with the defaults of decisions made in the README', () => {
    const command = parseConfig(commandApiConfigSchema, api);
    expect(command).toMatchObject({
      port: 3001,
      host: '127.0.0.1',
      publicBaseUrl: 'https://orders.shop.example',
      errorTypeBase: 'https://orders.shop.example/problems',
      eventLog: { kind: 'sqlite-file', path: stores.EVENT_LOG_FILE, pollIntervalMs: 10 },
      mongo: { url: stores.MONGODB_URL, database: 'order_service' },
    });
    expect(parseConfig(queryApiConfigSchema, api).port).toBe(3002);
    expect(parseConfig(projectionsConfigSchema, stores).kafka).toEqual({
      brokers: ['kafka-1:9092', 'kafka-2:9092'],
      clientId: 'order-service-projections',
      partitions: 6,
      topics: {
        orderEvents: 'order-events',
        webhookRequests: 'webhook-requests',
        deadLetter: 'webhook-dispatcher.dead-letter',
      },
    });
    const dispatcher = parseConfig(dispatcherConfigSchema, { ...stores, ...keys, EVENTSTORE_URL: undefined });
    expect(dispatcher.kafka.group).toBe('webhook-dispatcher');
    expect(dispatcher.port).toBe(3004);
  });

  it('takes EventStoreDB instead of the log file', () => {
    const { EVENT_LOG_FILE: _file, ...withoutFile } = api;
    const config = parseConfig(commandApiConfigSchema, {
      ...withoutFile,
      EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false',
    });
    expect(config.eventLog).toEqual({ kind: 'eventstoredb', url: 'esdb://eventstore:2113?tls=false' });
  });

  it('takes PostgreSQL, with its pool, statement timeout and a slow poll under LISTEN/NOTIFY', () => {
    const { EVENT_LOG_FILE: _file, ...withoutFile } = stores;
    const url = 'postgres://orders:secret@db-1:5432,db-2:5432/order_log?target_session_attrs=read-write';
    expect(parseConfig(projectionsConfigSchema, { ...withoutFile, EVENT_LOG_URL: url }).eventLog).toEqual({
      kind: 'postgres',
      url,
      poolSize: 10,
      statementTimeoutMs: 10_000,
      pollIntervalMs: 1000,
    });
  });

  it('names the variable when the event log is missing or given twice', () => {
    const { EVENT_LOG_FILE: _file, ...withoutLog } = stores;
    expect(problemsOf(() => parseConfig(projectionsConfigSchema, withoutLog))).toMatch(
      /EVENT_LOG_URL: set exactly one of EVENT_LOG_URL and EVENTSTORE_URL and EVENT_LOG_FILE/,
    );
    expect(
      problemsOf(() => parseConfig(projectionsConfigSchema, { ...stores, EVENTSTORE_URL: 'esdb://x:2113' })),
    ).toMatch(/EVENTSTORE_URL and EVENT_LOG_FILE are set/);
    expect(
      problemsOf(() =>
        parseConfig(projectionsConfigSchema, { ...stores, EVENT_LOG_URL: 'postgres://h/log' }),
      ),
    ).toMatch(/EVENT_LOG_URL and EVENT_LOG_FILE are set/);
  });

  it.each([
    ['postgres://orders:secret@db/log?sslcert=/etc/client.pem', 'the parameter sslcert'],
    [
      'postgres://orders:secret@db/log?target_session_attrs=any',
      'an unsupported value for target_session_attrs',
    ],
    ['postgres://orders:secret@db:5432', 'names no database'],
    ['postgres://orders:secret@db:port/log', 'a host that is not host[:port]'],
    ['mysql://orders:secret@db/log', 'must be a postgres:// or postgresql:// URL'],
  ])('refuses an EVENT_LOG_URL the client cannot honour, naming why but not the password: %s', (url, why) => {
    const { EVENT_LOG_FILE: _file, ...withoutFile } = stores;
    const problems = problemsOf(() =>
      parseConfig(projectionsConfigSchema, { ...withoutFile, EVENT_LOG_URL: url }),
    );
    expect(problems).toContain(`EVENT_LOG_URL: `);
    expect(problems).toContain(why);
    expect(problems).not.toContain('secret');
  });

  it("checks EVENTSTORE_URL with the client's own parser, naming the variable, never its value", () => {
    const { EVENT_LOG_FILE: _file, ...withoutFile } = stores;
    for (const [url, expected] of [
      ['http://admin:s3cret-pw@eventstore:2113', /esdb:\/\/ or esdb\+discover:\/\/ expected at character 1/],
      ['esdb://admin:s3cret-pw@eventstore:port', /port number expected/],
      ['esdb://admin:s3cret-pw@eventstore:2113?tls=no', /true or false expected/],
      [
        'esdb://admin:s3cret-pw@eventstore:2113?tlz=false',
        /an option the EventStoreDB client does not know \(tlz\)/,
      ],
      ['esdb://admin:s3cret-pw@eventstore:2113?tlsVerifyCert=false', /must not set tlsVerifyCert=false/],
    ] as const) {
      const problems = problemsOf(() =>
        parseConfig(projectionsConfigSchema, { ...withoutFile, EVENTSTORE_URL: url }),
      );
      expect(problems).toMatch(/^ {2}EVENTSTORE_URL: /m);
      expect(problems).toMatch(expected);
      expect(problems).not.toContain('s3cret');
      expect(problems).not.toContain('eventstore:');
    }
    for (const url of [
      'esdb://admin:s3cret-pw@eventstore:2113?tls=false',
      'esdb+discover://cluster.internal:2113?nodePreference=leader&keepAliveInterval=10000',
      'esdb://node-1:2113,node-2:2113,node-3:2113',
    ]) {
      expect(parseConfig(projectionsConfigSchema, { ...withoutFile, EVENTSTORE_URL: url }).eventLog).toEqual({
        kind: 'eventstoredb',
        url,
      });
    }
  });

  it('requires the keys every process must share, and the public address both APIs agree on', () => {
    const { JWT_PRIVATE_KEY_FILE: _jwt, ...noSigningKey } = api;
    const { PUBLIC_BASE_URL: _url, ...noAddress } = api;
    expect(problemsOf(() => parseConfig(queryApiConfigSchema, noAddress))).toMatch(
      /PUBLIC_BASE_URL: Invalid input/,
    );
    expect(problemsOf(() => parseConfig(commandApiConfigSchema, noSigningKey))).toMatch(
      /JWT_PRIVATE_KEY_FILE: set exactly one of JWT_PRIVATE_KEY_FILE and JWT_PRIVATE_KEY/,
    );
    const { WEBHOOK_SECRET_KEY_FILE: _secret, ...noSecret } = { ...stores, ...keys };
    expect(problemsOf(() => parseConfig(dispatcherConfigSchema, noSecret))).toMatch(
      /WEBHOOK_SECRET_KEY_FILE: set exactly one of/,
    );
    const { PERSONAL_DATA_KEY_FILE: _personal, ...noPersonalDataKey } = api;
    for (const schema of [commandApiConfigSchema, queryApiConfigSchema, dispatcherConfigSchema]) {
      expect(problemsOf(() => parseConfig(schema, noPersonalDataKey))).toMatch(
        /PERSONAL_DATA_KEY_FILE: set exactly one of PERSONAL_DATA_KEY_FILE and PERSONAL_DATA_KEY/,
      );
    }
    // The key binding Consistency-Tokens to their caller: the process that issues them and the one that reads them.
    const { CONSISTENCY_TOKEN_KEY_FILE: _consistency, ...noConsistencyTokenKey } = api;
    for (const schema of [commandApiConfigSchema, queryApiConfigSchema]) {
      expect(problemsOf(() => parseConfig(schema, noConsistencyTokenKey))).toMatch(
        /CONSISTENCY_TOKEN_KEY_FILE: set exactly one of CONSISTENCY_TOKEN_KEY_FILE and CONSISTENCY_TOKEN_KEY/,
      );
    }
  });

  it('refuses malformed store addresses without echoing their values', () => {
    const message = problemsOf(() =>
      parseConfig(projectionsConfigSchema, {
        ...stores,
        MONGODB_URL: 'postgres://user:hunter2@db/',
        KAFKA_BROKERS: 'kafka-1',
      }),
    );
    expect(message).toMatch(/MONGODB_URL: must be a mongodb:\/\/ or mongodb\+srv:\/\/ URL/);
    expect(message).toMatch(/KAFKA_BROKERS: must be host:port, comma-separated/);
    expect(message).not.toContain('hunter2');
  });

  it('gives the query API, which serves the catalogue, the caches to purge (none by default)', () => {
    expect(parseConfig(queryApiConfigSchema, api).catalog.purgeUrls).toEqual([]);
    const query = parseConfig(queryApiConfigSchema, {
      ...api,
      CACHE_PURGE_URLS: 'http://varnish-1:6081/,http://varnish-2:6081/',
    });
    expect(query.catalog.purgeUrls).toEqual(['http://varnish-1:6081/', 'http://varnish-2:6081/']);
    expect(
      problemsOf(() => parseConfig(queryApiConfigSchema, { ...api, CACHE_PURGE_URLS: 'ftp://cache/' })),
    ).toMatch(/CACHE_PURGE_URLS: must be http\(s\) URLs, comma-separated/);
  });

  it("tells the query API where the other processes' metrics are for the console, without credentials", () => {
    expect(parseConfig(queryApiConfigSchema, api).console.processes).toEqual({});
    const query = parseConfig(queryApiConfigSchema, {
      ...api,
      CONSOLE_PROJECTIONS_URL: 'http://projections:3003',
      CONSOLE_WEBHOOK_DISPATCHER_URL: 'http://webhook-dispatcher:3004',
    });
    expect(query.console.processes).toEqual({
      projections: 'http://projections:3003',
      'webhook-dispatcher': 'http://webhook-dispatcher:3004',
    });
    const message = problemsOf(() =>
      parseConfig(queryApiConfigSchema, {
        ...api,
        CONSOLE_PROJECTIONS_URL: 'http://ops:hunter2@projections:3003',
        CONSOLE_WEBHOOK_DISPATCHER_URL: 'ftp://webhook-dispatcher:3004',
      }),
    );
    expect(message).toMatch(/CONSOLE_PROJECTIONS_URL: must not carry a user name or password/);
    expect(message).toMatch(/CONSOLE_WEBHOOK_DISPATCHER_URL: /);
    expect(message).not.toContain('hunter2');
  });

  it('names an other-process address that is no URL at all instead of failing the start with a stack', () => {
    // An empty value (`CONSOLE_PROJECTIONS_URL: ${X:-}` in a compose file) or a typo is a configuration error.
    for (const value of ['', 'projections 3003', '//projections:3003']) {
      const message = problemsOf(() =>
        parseConfig(queryApiConfigSchema, {
          ...api,
          CONSOLE_PROJECTIONS_URL: value,
          CONSOLE_WEBHOOK_DISPATCHER_URL: value,
        }),
      );
      expect(message).toMatch(/CONSOLE_PROJECTIONS_URL: Invalid URL/);
      expect(message).toMatch(/CONSOLE_WEBHOOK_DISPATCHER_URL: Invalid URL/);
      expect(message).not.toMatch(/user name or password/);
    }
  });
});
