import { MongoNetworkError, MongoNotConnectedError, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { mongoUnavailable } from '../../infrastructure/mongo/mongo-errors.ts';

// Found by the fault suite on the stand of hosts (test/hosts): with the read store killed, commands and
// queries that met the driver's "out of reach" errors answered 500.
describe('MongoDB out of reach, as an HTTP answer', () => {
  it('is 503 with Retry-After when the driver cannot reach the server, also as the cause of another error', () => {
    for (const error of [
      new MongoNetworkError('connection <monitor> to 10.0.0.1:27017 closed'),
      new MongoNotConnectedError('not connected'),
      new Error('reading the users failed', { cause: new MongoNetworkError('connection reset') }),
    ]) {
      const answer = mongoUnavailable(error);
      expect(answer).toMatchObject({
        status: 503,
        kind: 'service-unavailable',
        headers: { 'Retry-After': '1' },
      });
    }
  });

  it('leaves every other error to the others (a server error is a bug to see as 500, not an outage)', () => {
    expect(mongoUnavailable(new MongoServerError({ message: 'bad query', code: 2 }))).toBeUndefined();
    expect(mongoUnavailable(new Error('something else'))).toBeUndefined();
    expect(mongoUnavailable('not an error')).toBeUndefined();
  });
});
