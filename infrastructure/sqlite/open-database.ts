import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * What a committed transaction survives:
 * - 'process-crash' (synchronous=NORMAL in WAL mode): the commit is in the OS before it returns, so a killed
 *   process loses nothing; a power cut may lose the last commits, never corrupt the file.
 * - 'power-loss' (synchronous=FULL): every commit is fsynced before it returns.
 */
export type Durability = 'process-crash' | 'power-loss';

export type SqliteOptions = {
  /** A file path, or ':memory:' for a throwaway database. */
  path: string;
  durability?: Durability;
  /** How long a writer waits for another process's write lock before failing. */
  busyTimeoutMs?: number;
  /**
   * WAL pages between automatic checkpoints. A checkpoint runs on the committing connection's thread and
   * syncs, so its size is a pause: larger ones make an append-only log faster, smaller ones keep a read
   * store with many small writes (read models, webhook retry state) from stalling requests. SQLite's
   * default is 1000 (4 MB).
   */
  walCheckpointPages?: number;
  /**
   * SQLite's page cache for this connection, in KiB (its own memory, on top of the OS's file cache, which
   * keeps the pages of both files anyway). Every page written or read stays in it up to this size, so a
   * larger one grows the process by as much once the file is that large: 64 MiB a connection put 128 MiB
   * into the embedded default's high-water mark after 70,000 orders (issue 31). The hot pages of the
   * appends and of reads by key (the ends of the B-trees, the latest orders) fit in a few MiB.
   */
  cacheKib?: number;
};

/**
 * The page cache of a one-off process that loads a read model in bulk (the admin CLI's projections:rebuild),
 * where batches of upserts land all over the table and the process's memory is not the service's: the size
 * every connection had before issue 31.
 */
export const bulkLoadCacheKib = 65536;

export const openDatabase = ({
  path,
  durability = 'process-crash',
  busyTimeoutMs = 5000,
  walCheckpointPages = 1000,
  cacheKib = 8192,
}: SqliteOptions) => {
  if (path !== ':memory:') ownerOnlyFile(path);
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  switchToWal(db, busyTimeoutMs);
  db.exec(`PRAGMA synchronous = ${durability === 'power-loss' ? 'FULL' : 'NORMAL'}`);
  db.exec('PRAGMA foreign_keys = ON');
  // What is deleted or overwritten is zeroed in its page, not left in free space: an erased data key, an
  // anonymised e-mail or a deleted address is gone from the disk, not only from the tables. FAST: where it
  // costs no extra write (ON also zeroes whole freed pages, which showed in POST /orders).
  db.exec('PRAGMA secure_delete = FAST');
  db.exec(`PRAGMA wal_autocheckpoint = ${Math.trunc(walCheckpointPages)}`);
  db.exec(`PRAGMA cache_size = -${Math.trunc(cacheKib)}`);
  return db;
};

const sqliteBusy = 5;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Processes opening one file at the same moment (the distributed mode's shared log, at start) race to
 * switch it to WAL, and SQLite answers a loser "database is locked" at once, without waiting out the busy
 * timeout: the switch is tried again, every 10 ms, for as long as that timeout.
 */
const switchToWal = (db: DatabaseSync, busyTimeoutMs: number) => {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      const busy = (error as { errcode?: number }).errcode === sqliteBusy;
      if (!busy || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
};

/**
 * The stores hold password hashes, refresh-token hashes and addresses: their files are the owner's only
 * (0600), whatever the umask. SQLite gives its -wal, -shm and -journal files the mode of the database file,
 * so the database file is created 0600 before SQLite opens it; an existing one that is looser is tightened.
 */
const ownerOnlyFile = (path: string) => {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
};

/**
 * Runs `work` in one write transaction (BEGIN IMMEDIATE takes the write lock up front, so a concurrent
 * writer waits instead of failing half-way), committing its result or rolling back what it threw.
 */
export const inWriteTransaction = <T>(db: DatabaseSync, work: () => T): T => {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
};

/** SQLite's extended result codes for constraint failures (primary key and unique). */
export const isUniqueViolation = (error: unknown): boolean => {
  const code = (error as { errcode?: number }).errcode;
  return code === 1555 || code === 2067;
};
