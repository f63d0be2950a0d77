import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { afterAll } from 'vitest';
import { requiredServer } from './integration-env.ts';

/** A fresh database on the integration server for one test file, dropped when the file is done. */
export const freshMongoDatabase = (): (() => Promise<Db>) => {
  let client: MongoClient | undefined;
  let db: Db | undefined;
  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
  });
  return async () => {
    if (!db) {
      client = await MongoClient.connect(requiredServer('MONGODB_URL'));
      db = client.db(`test_${randomUUID().replaceAll('-', '')}`);
    }
    return db;
  };
};
