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
      seedDemoUsers: true,
      consistencyTimeoutMs: 5000,
      catalog: { seedDemo: true, currency: 'EUR', refreshIntervalMs: 1000 },
      identity: {
        signingKeyPem: undefined,
        signingKeyFile: undefined,
        issuer: 'http://localhost:3000',
        audience: 'order-service',
        realm: 'order-service',
        rateLimits: { perAddress: 30, perUsername: 10, windowSeconds: 60 },
        trustProxy: false,
      },
    });
  });

  it('derives the problem type base from the public URL', () => {
    const config = parseConfig(embeddedConfigSchema, { PUBLIC_BASE_URL: 'https://shop.example/api/' });
    expect(config.errorTypeBase).toBe('https://shop.example/api/problems');
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
});
