import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimited, UnauthorizedError } from '../http/api-error.ts';

export type LoginRateLimits = {
  /** Requests to the token endpoints per client address per window, whatever the account. */
  perAddress: number;
  /** Wrong passwords for one account from one client address per window; beyond, that address waits. */
  failuresPerAccountAndAddress: number;
  /**
   * Wrong passwords for one account from all addresses together per window, beyond which the account is
   * under guessing: an address that has failed against it waits out its window after a single failure.
   */
  failuresPerAccount: number;
  windowSeconds: number;
};

const retryAfterSeconds = (msBeforeNext: number) => Math.max(1, Math.ceil(msBeforeNext / 1000));

/**
 * Limits the token endpoints per client address, and wrong passwords per account, with
 * rate-limiter-flexible, so that no one can lock an account's owner out (OWASP's advice: count failures per
 * account and address, slow the failing addresses, never refuse a fresh address's correct password):
 *
 * - every request to the token endpoints counts against its client address (`perAddress`), whatever the
 *   account: one address guessing many accounts is stopped there;
 * - wrong passwords count per (account, address): an address that failed `failuresPerAccountAndAddress`
 *   times waits for the end of its window, for this account only; a correct password clears its count;
 * - wrong passwords count per account too: past `failuresPerAccount` in a window, the account is under
 *   guessing from many addresses, and every address that has failed against it in its window is refused
 *   after that one failure. An address that has not failed against the account is never refused by any of
 *   this: its owner, anywhere else, still signs in.
 *
 * A password check under way counts as a failure until it succeeds, so that concurrent guesses from one
 * address cannot overtake the count. Counters live in this process (as every rate limit of the service
 * does): with several command-api processes, each enforces its own.
 */
export const createLoginRateLimiter = ({
  perAddress,
  failuresPerAccountAndAddress,
  failuresPerAccount,
  windowSeconds,
}: LoginRateLimits) => {
  const limiter = (keyPrefix: string, points: number) =>
    new RateLimiterMemory({ keyPrefix, points, duration: windowSeconds });
  const byAddress = limiter('token-address', perAddress);
  const failuresByPair = limiter('token-failures-account-address', failuresPerAccountAndAddress);
  const failuresByAccount = limiter('token-failures-account', failuresPerAccount);

  const accountOf = (username: string) => username.trim().toLowerCase();
  const pairOf = (username: string, clientAddress: string) => `${accountOf(username)} ${clientAddress}`;

  const limits = {
    /** Throws the 429 problem when the address has no requests left. */
    async address(clientAddress: string) {
      try {
        await byAddress.consume(clientAddress);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        throw rateLimited(retryAfterSeconds(rejection.msBeforeNext));
      }
    },

    /**
     * Admits one password attempt for this account from this address, or throws the 429 problem; the
     * attempt then must end in `succeeded`, `failed` or `abandoned`.
     */
    async attempt(username: string, clientAddress: string) {
      const pair = pairOf(username, clientAddress);
      let admitted: RateLimiterRes;
      try {
        admitted = await failuresByPair.consume(pair);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        throw rateLimited(retryAfterSeconds(rejection.msBeforeNext));
      }
      const earlierFailures = admitted.consumedPoints - 1;
      if (earlierFailures === 0) return;
      const account = await failuresByAccount.get(accountOf(username));
      if (account !== null && account.consumedPoints >= failuresPerAccount) {
        throw rateLimited(retryAfterSeconds(admitted.msBeforeNext));
      }
    },

    /** The password was right: this address's failures against the account are forgotten. */
    async succeeded(username: string, clientAddress: string) {
      await failuresByPair.delete(pairOf(username, clientAddress));
    },

    /** The password (or the username) was wrong: it counts against the account as well. */
    async failed(username: string) {
      await failuresByAccount.penalty(accountOf(username), 1);
    },

    /** The attempt ended without checking the password (the checks were busy): it does not count. */
    async abandoned(username: string, clientAddress: string) {
      await failuresByPair.reward(pairOf(username, clientAddress), 1);
    },
  };

  return {
    address: limits.address,
    /**
     * One password attempt under these limits: refused 429 for this account from this address, or run and
     * counted as it ended (a wrong username or password is a failure; a check that never ran, none).
     */
    async passwordAttempt<T>(username: string, clientAddress: string, check: () => Promise<T>): Promise<T> {
      await limits.attempt(username, clientAddress);
      let outcome: T;
      try {
        outcome = await check();
      } catch (error) {
        if (error instanceof UnauthorizedError) await limits.failed(username);
        else await limits.abandoned(username, clientAddress);
        throw error;
      }
      await limits.succeeded(username, clientAddress);
      return outcome;
    },
  };
};

export type LoginRateLimiter = ReturnType<typeof createLoginRateLimiter>;
