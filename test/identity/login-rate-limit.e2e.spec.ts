import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEmbeddedToExit } from '../support/embedded-child.ts';
import { postFormFrom, postJsonFrom, type AnswerFrom } from '../support/from-address.ts';
import { startTestService, type TestService, type TestUser } from '../support/test-service.ts';

// Each client speaks from an address of its own (connections bound to 127.0.x.y), straight to a process that
// serves the token endpoints, with no proxy trusted: the service sees the addresses as it sees real clients.
const limits = {
  AUTH_RATE_LIMIT_PER_ADDRESS: '12',
  AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS: '3',
  AUTH_FAILED_LOGINS_PER_ACCOUNT: '6',
  AUTH_RATE_LIMIT_WINDOW_SECONDS: '60',
};

let service: TestService;
let origin: string;
beforeAll(async () => {
  service = await startTestService(limits);
  origin = service.apiOrigins()[0]!;
});
afterAll(() => service.stop());

const signIn = (from: string, username: string, password: string) =>
  postJsonFrom(from, `${origin}/auth/token`, { grant_type: 'password', username, password });

/** A form posted by a page on another site, from its visitor's browser. */
const crossSiteSignIn = (from: string, username: string, password: string) =>
  postFormFrom(
    from,
    `${origin}/auth/token`,
    { grant_type: 'password', username, password },
    { Origin: 'https://elsewhere.example', 'Sec-Fetch-Site': 'cross-site' },
  );

const expectRateLimited = (answer: AnswerFrom) => {
  expect(answer.status).toBe(429);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(JSON.parse(answer.body)).toMatchObject({
    type: 'https://orders.example/problems/rate-limited',
    status: 429,
  });
};

let subnet = 0;
/** Addresses 127.0.<subnet>.1, .2, ... never used by another test of this file. */
const addresses = () => {
  subnet += 1;
  return (host: number) => `127.0.${subnet}.${host}`;
};

describe('no one can lock an account out', () => {
  let owner: TestUser;
  beforeAll(async () => {
    owner = await service.addUser(['customer']);
  });

  it('one wrong password from each of eleven addresses (cross-site form posts): the owner still signs in from an address of its own', async () => {
    const at = addresses();
    for (let host = 1; host <= 11; host++) {
      expect((await crossSiteSignIn(at(host), owner.email, 'guess')).status).toBe(401);
    }
    expect((await signIn(at(100), owner.email, owner.password)).status).toBe(200);
  });

  it('an address that failed against the account waits, with Retry-After; its owner elsewhere does not', async () => {
    const user = await service.addUser(['customer']);
    const at = addresses();
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect((await signIn(at(1), user.email, 'guess')).status).toBe(401);
    }
    // The fourth attempt from there is refused, the right password too.
    expectRateLimited(await signIn(at(1), user.email, user.password));
    // The account's name is matched whatever its case and surrounding blanks.
    expectRateLimited(await signIn(at(1), ` ${user.email.toUpperCase()}`, 'guess'));
    expect((await signIn(at(2), user.email, user.password)).status).toBe(200);
  });

  it("a right password forgets the address's failures", async () => {
    const user = await service.addUser(['customer']);
    const at = addresses();
    for (let round = 1; round <= 2; round++) {
      expect((await signIn(at(1), user.email, 'typo')).status).toBe(401);
      expect((await signIn(at(1), user.email, 'typo')).status).toBe(401);
      expect((await signIn(at(1), user.email, user.password)).status).toBe(200);
    }
  });
});

describe('guessing is still slowed', () => {
  it("from many addresses against one account: past the account's limit, each failing address gets one guess a window", async () => {
    const user = await service.addUser(['customer']);
    const at = addresses();
    // Below the account's limit (6 failures), an address has 3 guesses: two addresses use them all.
    for (const host of [1, 2]) {
      for (let attempt = 1; attempt <= 3; attempt++) {
        expect((await signIn(at(host), user.email, 'guess')).status).toBe(401);
      }
      expectRateLimited(await signIn(at(host), user.email, 'guess'));
    }
    // The account is under guessing now: a new address gets one guess, then waits for its window.
    for (const host of [3, 4, 5]) {
      expect((await signIn(at(host), user.email, 'guess')).status).toBe(401);
      expectRateLimited(await signIn(at(host), user.email, 'guess'));
      expectRateLimited(await signIn(at(host), user.email, user.password));
    }
    // 9 guesses from 5 addresses; with the same addresses and no account limit there would have been 15.
    // The owner, at an address that has not failed, signs in all along.
    expect((await signIn(at(50), user.email, user.password)).status).toBe(200);
  });

  it('one address against many accounts: its requests to the token endpoints are bounded, whatever the account', async () => {
    const at = addresses();
    const accounts = await Promise.all(Array.from({ length: 11 }, () => service.addUser(['customer'])));
    for (const account of accounts) {
      expect((await signIn(at(1), account.email, 'guess')).status).toBe(401);
    }
    expect(
      (await postJsonFrom(at(1), `${origin}/auth/token/refresh`, { refresh_token: 'guess' })).status,
    ).toBe(401);
    // The 13th request from this address, to any account and either endpoint, is refused.
    expectRateLimited(await signIn(at(1), accounts[0]!.email, accounts[0]!.password));
    expectRateLimited(await postJsonFrom(at(1), `${origin}/auth/token/refresh`, { refresh_token: 'guess' }));
    // Another address is not affected.
    expect((await signIn(at(2), accounts[0]!.email, accounts[0]!.password)).status).toBe(200);
  });
});

describe('the variable it replaces', () => {
  it('AUTH_RATE_LIMIT_PER_USERNAME stops the start (exit 78), naming its replacement', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'order-service-removed-variable-'));
    try {
      const exit = await runEmbeddedToExit(dataDir, { AUTH_RATE_LIMIT_PER_USERNAME: '10' });
      expect(exit.code).toBe(78);
      expect(exit.stderr).toMatch(
        /AUTH_RATE_LIMIT_PER_USERNAME: was removed .*AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
