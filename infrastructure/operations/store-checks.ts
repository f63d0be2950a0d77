import type { DatabaseSync } from 'node:sqlite';
import type { EventStore } from '../event-store/event-store.ts';
import { pingCheck, type ReadinessCheck } from './readiness.ts';

/** The event log answers: its head position is one cheap read on every adapter. */
export const eventLogCheck = (eventStore: EventStore): ReadinessCheck =>
  pingCheck(() => eventStore.headPosition());

/** A node:sqlite database is open and answers a query. */
export const sqliteCheck = (db: DatabaseSync): ReadinessCheck => {
  const select = db.prepare('SELECT 1');
  return async () => {
    if (!db.isOpen) return { status: 'failing', detail: 'the database is closed' };
    select.get();
    return { status: 'ok' };
  };
};
