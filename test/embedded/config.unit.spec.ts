import { describe, expect, it } from 'vitest';
import { embeddedConfigSchema } from '../../embedded/config.ts';
import { ConfigurationError, parseConfig } from '../../infrastructure/config/parse-config.ts';

describe('embedded configuration', () => {
  it('needs no variable at all', () => {
    expect(parseConfig(embeddedConfigSchema, {})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      dataDir: './data',
      eventLogDurability: 'process-crash',
      logLevel: 'info',
      publicBaseUrl: 'http://localhost:3000',
      errorTypeBase: 'http://localhost:3000/problems',
      docsUrl: 'http://localhost:3000/docs',
      seedDemoUsers: true,
      consistencyTimeoutMs: 5000,
      projectionBatchIntervalMs: 10,
      http: {
        maxRequestsInFlight: 1000,
        maxRequestsInFlightPerClient: 64,
        bodyTimeoutMs: 10_000,
        maxEventLoopDelayMs: 200,
        maxConnections: 10_000,
        maxConnectionsPerClient: 256,
        headersTimeoutMs: 10_000,
        acceptSockets: process.platform === 'linux' ? 64 : 1,
      },
      readiness: { checkTimeoutMs: 500, maxProjectionLag: 1000 },
      catalog: { seedDemo: true, currency: 'EUR', refreshIntervalMs: 1000, purgeUrls: [] },
      auth: {
        signingKeyPem: undefined,
        signingKeyFile: undefined,
        issuer: 'http://localhost:3000',
        audience: 'order-service',
        realm: 'order-service',
        rateLimits: {
          perAddress: 30,
          failuresPerAccountAndAddress: 10,
          failuresPerAccount: 100,
          windowSeconds: 60,
        },
        writeLimits: {
          user: { orders: 60, addresses: 30, sessions: 30 },
          staff: { orders: 600, addresses: 300, sessions: 300 },
          windowSeconds: 60,
        },
        trustProxy: false,
      },
      webhooks: {
        allowPrivateNetworks: false,
        retryScheduleMs: [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000],
        timeoutMs: 10_000,
        secretKey: null,
        secretKeyFile: null,
        dnsServers: null,
      },
      personalData: { key: null, keyFile: null, previousKeyFiles: [] },
      consistencyTokens: { key: null, keyFile: null },
    });
  });

  it('reads the load-shedding limits (0 turns a bound off), and refuses a negative one', () => {
    const config = parseConfig(embeddedConfigSchema, {
      HTTP_MAX_REQUESTS_IN_FLIGHT: '0',
      HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: '0',
      HTTP_BODY_TIMEOUT_MS: '2500',
      HTTP_MAX_EVENT_LOOP_DELAY_MS: '50',
      HTTP_MAX_CONNECTIONS: '600',
      HTTP_ACCEPT_SOCKETS: '4',
      HTTP_MAX_CONNECTIONS_PER_CLIENT: '0',
    });
    expect(config.http).toEqual({
      maxRequestsInFlight: 0,
      maxRequestsInFlightPerClient: 0,
      bodyTimeoutMs: 2500,
      maxEventLoopDelayMs: 50,
      maxConnections: 600,
      headersTimeoutMs: 2500,
      acceptSockets: 4,
    });
    expect(() => parseConfig(embeddedConfigSchema, { HTTP_MAX_REQUESTS_IN_FLIGHT: '-1' })).toThrow(
      /HTTP_MAX_REQUESTS_IN_FLIGHT: /,
    );
  });

  it('reads the webhook settings, and refuses a malformed schedule or a short secret key', () => {
    const config = parseConfig(embeddedConfigSchema, {
      WEBHOOK_RETRY_SCHEDULE: '100, 200,400',
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
      WEBHOOK_DNS_SERVERS: '127.0.0.1:5353, 10.0.0.2',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    expect(config.webhooks).toMatchObject({
      retryScheduleMs: [100, 200, 400],
      secretKey: Buffer.alloc(32, 1),
      dnsServers: ['127.0.0.1:5353', '10.0.0.2'],
      allowPrivateNetworks: true,
    });
    expect(() =>
      parseConfig(embeddedConfigSchema, {
        WEBHOOK_RETRY_SCHEDULE: '5s,30s',
        WEBHOOK_SECRET_KEY: Buffer.alloc(16).toString('base64'),
      }),
    ).toThrow(/WEBHOOK_RETRY_SCHEDULE(.|\n)*WEBHOOK_SECRET_KEY/);
  });

  it('derives the problem type base from the public URL', () => {
    const config = parseConfig(embeddedConfigSchema, { PUBLIC_BASE_URL: 'https://shop.example/api/' });
    expect(config.errorTypeBase).toBe('https://shop.example/api/problems');
    expect(config.docsUrl).toBe('https://shop.example/api/docs');
  });

  it('names every bad variable, without echoing its value', () => {
    let error: unknown;
    try {
      parseConfig(embeddedConfigSchema, { PORT: 'seventy', EVENT_LOG_DURABILITY: 'hopeful-secret' });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const message = (error as Error).message;
    expect(message).toMatch(/^ {2}PORT: /m);
    expect(message).toMatch(/^ {2}EVENT_LOG_DURABILITY: /m);
    expect(message).not.toContain('hopeful-secret');
  });

  it('reads CACHE_PURGE_URLS as a comma-separated list of http(s) URLs, and refuses anything else', () => {
    const urls = ' http://127.0.0.1:6081/ ,https://purge.cdn-adapter.internal/varnish,';
    expect(parseConfig(embeddedConfigSchema, { CACHE_PURGE_URLS: urls }).catalog.purgeUrls).toEqual([
      'http://127.0.0.1:6081/',
      'https://purge.cdn-adapter.internal/varnish',
    ]);
    expect(parseConfig(embeddedConfigSchema, { CACHE_PURGE_URLS: '' }).catalog.purgeUrls).toEqual([]);
    expect(() => parseConfig(embeddedConfigSchema, { CACHE_PURGE_URLS: 'varnish:6081' })).toThrow(
      /CACHE_PURGE_URLS/,
    );
  });
});
