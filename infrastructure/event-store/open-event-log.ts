import { EventStoreDBClient } from '@eventstore/db-client';
import type { EventLogConfig } from '../config/service-environment.ts';
import type { EventStore } from './event-store.ts';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.ts';
import { createSqliteEventStore } from './sqlite-event-store.ts';

/** The event log of a distributed-mode process, as configured. */
export const openEventLog = (config: EventLogConfig): EventStore =>
  config.kind === 'eventstoredb'
    ? createEventStoreDbEventStore(EventStoreDBClient.connectionString(config.url))
    : createSqliteEventStore({ path: config.path, pollIntervalMs: config.pollIntervalMs });
