import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../infrastructure/logging/create-logger.ts';
import { safeError } from '../../infrastructure/logging/safe-error.ts';

const capture = () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info' }, stream) };
};

describe('what the log keeps of an error', () => {
  it('keeps type, message, code, stack and causes, and no other field (bodies, documents, values)', () => {
    const cause = Object.assign(new Error('E11000 duplicate key'), {
      code: 11000,
      keyValue: { email: 'ann@shop.example' },
    });
    const error = Object.assign(new SyntaxError('the body is not valid'), {
      body: '{"password":"hunter2"}',
      cause,
    });
    expect(safeError(error)).toEqual({
      type: 'SyntaxError',
      message: 'the body is not valid',
      stack: error.stack,
      cause: { type: 'Error', message: 'E11000 duplicate key', code: 11000, stack: cause.stack },
    });
    expect(safeError({ password: 'hunter2' })).toEqual({ type: 'object' });
    const refused = new AggregateError([
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ]);
    expect(safeError(refused)).toMatchObject({
      type: 'AggregateError',
      errors: [{ type: 'Error', message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' }],
    });
  });

  it('logs errors that way, and redacts password, token and secret fields whoever logs them', () => {
    const { lines, logger } = capture();
    const error = Object.assign(new Error('failed'), { body: 'street=1 Main St' });
    logger.error({ err: error, user: { password: 'hunter2' }, token: 'eyJhbGci' }, 'it failed');
    logger.info({ webhook: { secret: 'whsec_abc' }, headers: { authorization: 'Bearer x' } }, 'noted');
    const text = lines.join('');
    for (const leaked of ['1 Main St', 'hunter2', 'eyJhbGci', 'whsec_abc', 'Bearer x']) {
      expect(text).not.toContain(leaked);
    }
    const [first] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({ msg: 'it failed', err: { type: 'Error', message: 'failed' } });
  });
});
