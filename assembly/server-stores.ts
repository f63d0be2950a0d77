import type { EventLogConfig } from '../infrastructure/config/service-environment.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import { openEventLog } from '../infrastructure/event-store/open-event-log.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';
import { dirname } from 'node:path';
import { dataDirCheck, eventLogCheck } from '../infrastructure/operations/store-checks.ts';
import { mongoStores } from './mongo-stores.ts';

/**
 * What every process of the distributed mode opens first: its read store in MongoDB and the server event
 * log, with the readiness checks of both. `processName` names its connections to the log; a process that
 * `appends` to a log in a local SQLite file also needs that file's directory to take writes.
 */
export const openServerStores = async (
  config: { mongo: { url: string; database: string }; eventLog: EventLogConfig },
  processName: string,
  {
    appends = false,
    wrapLog = (log) => log,
  }: { appends?: boolean; wrapLog?: (log: EventStore) => EventStore } = {},
) => {
  const stores = mongoStores(await connectMongo(config.mongo), `MongoDB database ${config.mongo.database}`);
  const eventStore = wrapLog(await openEventLog(config.eventLog, processName));
  return {
    stores,
    eventStore,
    readiness: {
      eventLog: eventLogCheck(eventStore),
      mongodb: stores.readiness,
      ...(appends && config.eventLog.kind === 'sqlite-file'
        ? { dataDir: dataDirCheck(dirname(config.eventLog.path)) }
        : {}),
    },
    async close() {
      await eventStore.close();
      await stores.close();
    },
  };
};
