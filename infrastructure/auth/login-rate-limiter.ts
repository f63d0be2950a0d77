import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimited } from '../http/api-error.ts';

export type LoginRateLimits = {
  /** Requests to the token endpoints per client address per window. */
  perAddress: number;
  /**
   * Password attempts per username from one client address per window; from all addresses together, ten
   * times as many.
   */
  perUsername: number;
  windowSeconds: number;
};

/** How many more password attempts a username takes from all addresses than from any one of them. */
export const usernameLimitAcrossAddresses = 10;

/**
 * Limits the token endpoints per client address, and password attempts per username, with
 * rate-limiter-flexible. The strict username limit counts per username and client address, so that a
 * guesser elsewhere cannot lock the user out; across all addresses the limit is ten times higher, so that
 * spreading guesses over many addresses gains little. Counters live in this process: with several
 * command-api processes, each enforces its own share.
 */
export const createLoginRateLimiter = ({ perAddress, perUsername, windowSeconds }: LoginRateLimits) => {
  const limiter = (keyPrefix: string, points: number) =>
    new RateLimiterMemory({ keyPrefix, points, duration: windowSeconds });
  const byAddress = limiter('token-address', perAddress);
  const byUsernameAndAddress = limiter('token-username-address', perUsername);
  const byUsername = limiter('token-username', perUsername * usernameLimitAcrossAddresses);

  const consume = async (limiter: RateLimiterMemory, key: string) => {
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw rateLimited(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
    }
  };

  return {
    /** Throws the 429 problem when the address has no requests left. */
    address: (clientAddress: string) => consume(byAddress, clientAddress),
    /** Throws the 429 problem when this username has no password attempts left, from here or at all. */
    username: async (username: string, clientAddress: string) => {
      const key = username.trim().toLowerCase();
      await consume(byUsernameAndAddress, `${key} ${clientAddress}`);
      await consume(byUsername, key);
    },
  };
};

export type LoginRateLimiter = ReturnType<typeof createLoginRateLimiter>;
