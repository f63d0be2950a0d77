import { EventStoreDBClient } from '@eventstore/db-client';
import { describe } from 'vitest';
import { createEventStoreDbEventStore } from '../../infrastructure/event-store/eventstoredb-event-store.ts';
import { eventStoreContract } from '../contracts/event-store.contract.ts';

const url = process.env['EVENTSTORE_URL'];
if (!url) {
  console.warn(
    'EventStoreDB contract suite skipped: EVENTSTORE_URL is not set. EventStoreDB cannot run on this machine; ' +
      'run `docker compose up -d --wait eventstore` and EVENTSTORE_URL=esdb://localhost:2113?tls=false to ' +
      'include it (and `docker compose down -v` after: docs/testing.md).',
  );
}

describe.skipIf(!url)('EventStoreDB adapter (EVENTSTORE_URL)', () => {
  eventStoreContract('EventStoreDB', async () =>
    createEventStoreDbEventStore(EventStoreDBClient.connectionString(url!)),
  );
});
