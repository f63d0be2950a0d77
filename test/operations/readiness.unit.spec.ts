import { describe, expect, it } from 'vitest';
import { createReadiness, pingCheck } from '../../infrastructure/operations/readiness.ts';

describe('readiness checks', () => {
  it('is ready when every check is ok, and reports each', async () => {
    const readiness = createReadiness({
      timeoutMs: 1000,
      checks: { a: pingCheck(async () => 'pong'), b: async () => ({ status: 'ok', detail: 'fine' }) },
    });
    expect(await readiness.check()).toEqual({
      ready: true,
      checks: { a: { status: 'ok' }, b: { status: 'ok', detail: 'fine' } },
    });
  });

  it('is not ready when a check fails, naming the error type but never its message', async () => {
    class MongoServerSelectionError extends Error {
      override name = 'MongoServerSelectionError';
    }
    const readiness = createReadiness({
      timeoutMs: 1000,
      checks: {
        store: pingCheck(async () => {
          throw new MongoServerSelectionError('connect to mongodb://admin:s3cret@db:27017 failed');
        }),
        log: pingCheck(async () => null),
      },
    });
    const report = await readiness.check();
    expect(report.ready).toBe(false);
    expect(report.checks['log']).toEqual({ status: 'ok' });
    expect(report.checks['store']).toEqual({
      status: 'failing',
      detail: 'the check failed (MongoServerSelectionError)',
    });
    expect(JSON.stringify(report)).not.toContain('s3cret');
  });

  it('bounds a check that does not answer, and does not start it again while it hangs', async () => {
    let started = 0;
    let answer: (value: unknown) => void = () => undefined;
    const readiness = createReadiness({
      timeoutMs: 20,
      checks: {
        slow: pingCheck(() => {
          started++;
          return started === 1 ? new Promise((resolve) => (answer = resolve)) : Promise.resolve('pong');
        }),
      },
    });
    const failing = {
      ready: false,
      checks: { slow: { status: 'failing', detail: 'no answer within 20 ms' } },
    };
    expect(await readiness.check()).toEqual(failing);
    expect(await readiness.check()).toEqual(failing);
    expect(started).toBe(1);
    answer('pong');
    // Once the hanging check has answered, the next probe runs it again.
    await expect.poll(async () => (await readiness.check()).ready).toBe(true);
    expect(started).toBe(2);
  });
});
