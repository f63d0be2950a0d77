import { ApiError, rateLimited } from '../http/api-error.ts';

export type PasswordCheckLimits = {
  /** Checks running at once: about the threads that hash (libuv's pool: 4). */
  concurrency: number;
  /** Checks waiting for a turn, over all clients; beyond, a sign-in is refused at once (503). */
  queue: number;
  /** Checks running or waiting for one client address; beyond, its sign-ins are refused at once (429). */
  perClient: number;
};

export const defaultPasswordCheckLimits: PasswordCheckLimits = { concurrency: 4, queue: 32, perClient: 8 };

/**
 * A password check costs about 200 ms of a hashing thread and 32 MB (scrypt, on purpose): unbounded, a few
 * dozen addresses each well inside the login rate limits queue enough of them to keep everyone else's
 * sign-in waiting for minutes. Checks run a few at a time; a bounded number wait; past that, or past a
 * client's own share, a sign-in is refused at once and can be retried.
 */
export const createPasswordChecks = ({ concurrency, queue, perClient }: PasswordCheckLimits) => {
  let running = 0;
  const waiting: (() => void)[] = [];
  const byClient = new Map<string, number>();

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  return {
    async run<T>(client: string, check: () => Promise<T>): Promise<T> {
      const held = byClient.get(client) ?? 0;
      if (held >= perClient) throw rateLimited(1);
      if (running >= concurrency && waiting.length >= queue) {
        throw new ApiError(
          'overloaded',
          'Too many sign-ins are being checked right now. Retry in a second.',
          {
            headers: { 'Retry-After': '1' },
          },
        );
      }
      byClient.set(client, held + 1);
      try {
        if (running < concurrency) running++;
        else await new Promise<void>((resolve) => waiting.push(resolve));
        try {
          return await check();
        } finally {
          release();
        }
      } finally {
        const left = (byClient.get(client) ?? 1) - 1;
        if (left <= 0) byClient.delete(client);
        else byClient.set(client, left);
      }
    },
  };
};

export type PasswordChecks = ReturnType<typeof createPasswordChecks>;
