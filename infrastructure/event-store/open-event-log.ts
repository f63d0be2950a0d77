import { EventStoreDBClient } from '@eventstore/db-client';
import type { EventLogConfig } from '../config/service-environment.ts';
import type { EventStore } from './event-store.ts';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.ts';
import { createPostgresEventStore } from './postgres/postgres-event-store.ts';
import { createSqliteEventStore } from './sqlite-event-store.ts';

/** The event log of a distributed-mode process, as configured; `process` names its connections. */
export const openEventLog = async (config: EventLogConfig, process: string): Promise<EventStore> => {
  switch (config.kind) {
    case 'postgres':
      return createPostgresEventStore({ ...config, applicationName: `order-service-${process}` });
    case 'eventstoredb':
      return createEventStoreDbEventStore(EventStoreDBClient.connectionString(config.url));
    case 'sqlite-file':
      return createSqliteEventStore({ path: config.path, pollIntervalMs: config.pollIntervalMs });
    default:
      return config satisfies never;
  }
};
