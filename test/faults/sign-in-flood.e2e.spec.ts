// Sign-ins flooding the password checks, each client well inside the login rate limits: the checks cost
// about 200 ms of a hashing thread each (scrypt, on purpose), so this runs with the fault tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../support/http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';

describe('password checks under a flood of sign-ins (each well inside the rate limits)', () => {
  let flooded: TestService;
  beforeAll(async () => {
    flooded = await startTestService({ ...loadTestWriteLimits, TRUST_PROXY: 'loopback' });
  });
  afterAll(() => flooded.stop());

  it('answers every sign-in within seconds (401, or 429/503 at once past the bounds), and a real user signs in once it passes', async () => {
    const user = await flooded.addUser(['customer']);
    // One wrong sign-in alone, for the time a password check takes on this machine today.
    const alone = performance.now();
    await postJson(
      `${flooded.url}/auth/token`,
      { grant_type: 'password', username: 'nobody-first@shop.example', password: 'guess' },
      { 'X-Forwarded-For': '198.51.100.250' },
    );
    const checkMs = Math.max(50, performance.now() - alone);
    // 40 addresses, 5 guesses each for usernames that do not exist: each costs a full password hash (the
    // decoy check).
    const started = performance.now();
    const flood = Array.from({ length: 200 }, (_, n) =>
      postJson(
        `${flooded.url}/auth/token`,
        { grant_type: 'password', username: `nobody-${n}@shop.example`, password: 'guess' },
        { 'X-Forwarded-For': `203.0.113.${Math.floor(n / 5) + 1}` },
      ).then((response) => ({ status: response.status, afterMs: performance.now() - started })),
    );
    const answers = await Promise.all(flood);
    const statuses = new Set(answers.map((answer) => answer.status));
    expect([...statuses].every((status) => [401, 429, 503].includes(status))).toBe(true);
    expect(answers.filter((answer) => answer.status === 503).length).toBeGreaterThan(0);
    // Bounded: at most the 36 checks running or waiting stand between a request and its answer (two cores:
    // about 18 check-times); unbounded, the last of the 200 would wait about 100.
    const slowest = Math.max(...answers.map((answer) => answer.afterMs));
    expect(
      slowest / checkMs,
      `slowest ${Math.round(slowest)} ms, one check ${Math.round(checkMs)} ms`,
    ).toBeLessThan(40);
    const signedIn = await postJson(
      `${flooded.url}/auth/token`,
      { grant_type: 'password', username: user.email, password: user.password },
      { 'X-Forwarded-For': '192.0.2.77' },
    );
    expect(signedIn.status).toBe(200);
  });
});
