import { randomUUID } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { describeStorageFailure, storageFailureOf } from '../storage/storage-failure.ts';
import type { EventStore } from '../event-store/event-store.ts';
import { pingCheck, type CheckResult, type ReadinessCheck } from './readiness.ts';

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
 * stayed 200 while every command answered 503 storage-unavailable. GET /ready is public and never shed, so
 * the disk is probed at most once per `intervalMs`: calls in between get the last answer (or share the probe
 * under way).
 */
export const dataDirCheck = (
  dir: string,
  { probeBytes = 64 * 1024, intervalMs = 5_000, now = () => performance.now() } = {},
): ReadinessCheck => {
  const block = Buffer.alloc(probeBytes);
  const probeOnce = async (): Promise<CheckResult> => {
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
  let last: { at: number; result: Promise<CheckResult> } | undefined;
  return () => {
    if (last && now() - last.at < intervalMs) return last.result;
    const result = probeOnce();
    last = { at: now(), result };
    // A probe that threw (not a storage failure) is not kept: the next call tries again.
    result.catch(() => (last = undefined));
    return result;
  };
};
