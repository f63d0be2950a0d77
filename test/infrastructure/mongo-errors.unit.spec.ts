import {
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { isMongoUnreachable, mongoClientDefaults } from '../../infrastructure/mongo/mongo-unavailable.ts';

// Found by the fault suite on the stand of hosts (test/hosts): with the read store killed, commands and
// queries that met the driver's "out of reach" errors answered 500. These answer 503 with Retry-After
// (infrastructure/http/problem-details.ts; over HTTP: test/distributed/read-store-outage.e2e.spec.ts).
describe('MongoDB out of reach', () => {
  it('is told by the driver’s errors that say the server cannot be reached, also as the cause of another', () => {
    for (const error of [
      new MongoNetworkError('connection <monitor> to 10.0.0.1:27017 closed'),
      new MongoNotConnectedError('not connected'),
      // The topology it describes is not looked at.
      new MongoServerSelectionError('Server selection timed out after 5000 ms', {} as never),
      new Error('reading the users failed', { cause: new MongoNetworkError('connection reset') }),
    ]) {
      expect(isMongoUnreachable(error), error.message).toBe(true);
    }
  });

  it('leaves every other error alone (a server error is a bug to see as 500, not an outage)', () => {
    expect(isMongoUnreachable(new MongoServerError({ message: 'bad query', code: 2 }))).toBe(false);
    expect(isMongoUnreachable(new Error('something else'))).toBe(false);
    expect(isMongoUnreachable('not an error')).toBe(false);
  });

  it('gives the driver a 5 s server selection unless MONGODB_URL names one', () => {
    expect(mongoClientDefaults('mongodb://a:27017/db')).toEqual({ serverSelectionTimeoutMS: 5000 });
    expect(mongoClientDefaults('mongodb://a,b/?replicaSet=rs0&serverSelectionTimeoutMS=3000')).toEqual({});
    expect(mongoClientDefaults('mongodb://a/?serverselectiontimeoutms=100')).toEqual({});
  });
});
