import { MongoClient, type Db } from 'mongodb';

export type MongoConnection = { db: Db; close: () => Promise<void> };

/** Connects to the configured database; the driver reconnects on its own after a connection is lost. */
export const connectMongo = async ({
  url,
  database,
}: {
  url: string;
  database: string;
}): Promise<MongoConnection> => {
  const client = await MongoClient.connect(url);
  return { db: client.db(database), close: () => client.close() };
};
