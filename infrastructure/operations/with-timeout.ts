export class TimeoutError extends Error {
  readonly kind = 'timeout';
}

/** The promise's outcome, or a TimeoutError once `ms` passed first (the work itself goes on unobserved). */
export const withTimeout = <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
};
