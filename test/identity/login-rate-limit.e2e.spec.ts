import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, problemOf } from '../support/http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  // Trusting the loopback proxy lets the test speak from several client addresses through X-Forwarded-For.
  service = await startTestService({
    AUTH_RATE_LIMIT_PER_ADDRESS: '3',
    AUTH_RATE_LIMIT_PER_USERNAME: '2',
    AUTH_RATE_LIMIT_WINDOW_SECONDS: '60',
    TRUST_PROXY: 'loopback',
  });
});
afterAll(() => service.stop());

const attempt = (from: string, username: string, path = '/auth/token') =>
  postJson(
    `${service.url}${path}`,
    path === '/auth/token'
      ? { grant_type: 'password', username, password: 'guess' }
      : { refresh_token: 'guess' },
    { 'X-Forwarded-For': from },
  );

const expectRateLimited = async (response: Response) => {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(await problemOf(response)).toMatchObject({
    type: 'https://orders.example/problems/rate-limited',
    status: 429,
  });
};

describe('rate limits on the token endpoints', () => {
  it('per client address, whatever the username, across both endpoints', async () => {
    expect((await attempt('203.0.113.1', 'a@shop.example')).status).toBe(401);
    expect((await attempt('203.0.113.1', 'b@shop.example')).status).toBe(401);
    expect((await attempt('203.0.113.1', 'c@shop.example', '/auth/token/refresh')).status).toBe(401);
    await expectRateLimited(await attempt('203.0.113.1', 'd@shop.example'));
    // another address is not affected
    expect((await attempt('203.0.113.2', 'e@shop.example')).status).toBe(401);
  });

  it('per username and address: a guesser is stopped, the user elsewhere is not locked out', async () => {
    const user = await service.addUser(['customer']);
    const login = (from: string, password: string) =>
      postJson(
        `${service.url}/auth/token`,
        { grant_type: 'password', username: user.email, password },
        { 'X-Forwarded-For': from },
      );
    expect((await login('198.51.100.1', 'guess')).status).toBe(401);
    expect((await login('198.51.100.1', 'guess')).status).toBe(401);
    await expectRateLimited(await login('198.51.100.1', user.password));
    // The same username from the user's own address still signs in.
    expect((await login('192.0.2.10', user.password)).status).toBe(200);
  });

  it('per username across all addresses at ten times the limit, so spreading guesses gains little', async () => {
    const victim = 'victim@shop.example';
    for (let address = 1; address <= 10; address++) {
      for (const casing of [victim, 'Victim@Shop.example']) {
        expect((await attempt(`203.0.113.${100 + address}`, casing)).status).toBe(401);
      }
    }
    await expectRateLimited(await attempt('203.0.113.200', victim));
  });
});
