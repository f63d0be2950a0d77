import { MongoClient, type Db } from 'mongodb';

export type MongoConnection = {
  db: Db;
  /** Resolves once the server answered a ping (what GET /ready asks). */
  ping: () => Promise<void>;
  close: () => Promise<void>;
};

/** Connects to the configured database; the driver reconnects on its own after a connection is lost. */
export const connectMongo = async ({
  url,
  database,
}: {
  url: string;
  database: string;
}): Promise<MongoConnection> => {
  const client = await MongoClient.connect(url);
  const db = client.db(database);
  return {
    db,
    ping: async () => {
      await db.command({ ping: 1 });
    },
    close: () => client.close(),
  };
};
