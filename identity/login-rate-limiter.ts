import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimited } from '../infrastructure/http/api-error.ts';

export type LoginRateLimits = {
  /** Requests to the token endpoints per client address per window. */
  perAddress: number;
  /** Password attempts per username per window, from any address. */
  perUsername: number;
  windowSeconds: number;
};

/**
 * Limits the token endpoints per client address and per username, with rate-limiter-flexible.
 * Counters live in this process: with several command-api processes, each enforces its own share.
 */
export const createLoginRateLimiter = ({ perAddress, perUsername, windowSeconds }: LoginRateLimits) => {
  const byAddress = new RateLimiterMemory({
    keyPrefix: 'token-address',
    points: perAddress,
    duration: windowSeconds,
  });
  const byUsername = new RateLimiterMemory({
    keyPrefix: 'token-username',
    points: perUsername,
    duration: windowSeconds,
  });

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
    username: (username: string) => consume(byUsername, username.trim().toLowerCase()),
  };
};

export type LoginRateLimiter = ReturnType<typeof createLoginRateLimiter>;
