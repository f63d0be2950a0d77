import { randomUUID } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { describeStorageFailure, storageFailureOf } from '../storage/storage-failure.ts';
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

/**
 * The directory the stores write in still takes writes: a probe file of `probeBytes` is written, synced
 * and removed, as at start-up. Reads keep working on a full or read-only disk, so without this GET /ready
 * stayed 200 while every command answered 503 storage-unavailable.
 */
export const dataDirCheck = (dir: string, { probeBytes = 64 * 1024 } = {}): ReadinessCheck => {
  const block = Buffer.alloc(probeBytes);
  return async () => {
    const probe = join(dir, `.ready-probe-${randomUUID()}`);
    try {
      const file = await open(probe, 'w');
      try {
        await file.write(block);
        await file.sync();
      } finally {
        await file.close();
      }
      return { status: 'ok' };
    } catch (error) {
      const failure = storageFailureOf(error);
      if (!failure) throw error;
      return { status: 'failing', detail: `cannot be written: ${describeStorageFailure(failure)}` };
    } finally {
      await rm(probe, { force: true }).catch(() => undefined);
    }
  };
};
