import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  rmSync,
  statfsSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { StartupError } from '../process/startup-error.ts';
import { describeStorageFailure, storageFailureOf } from './storage-failure.ts';

/** ", 12 kB free" on the file system of `dir` (or of its nearest existing parent). */
const freeSpace = (dir: string): string => {
  let existing = resolve(dir);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    const { bavail, bsize } = statfsSync(existing);
    return `, ${Math.floor((bavail * bsize) / 1024)} kB free`;
  } catch {
    return '';
  }
};

/**
 * The start-up error for a storage failure in `dir` ("DATA_DIR /srv/data cannot be written: the disk is
 * full (ENOSPC, 0 kB free)"), or undefined when `error` is something else.
 */
export const dataDirError = (dir: string, error: unknown): StartupError | undefined => {
  const failure = storageFailureOf(error);
  if (!failure) return undefined;
  const free = failure.cause === 'full' ? freeSpace(dir) : '';
  return new StartupError(`DATA_DIR ${dir} cannot be written: ${describeStorageFailure(failure, free)}`);
};

/** mkdir -p, failing with the real cause: Node's recursive mkdir says ENOENT when a parent cannot be made. */
const makeDirectory = (dir: string) => {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    let missing = resolve(dir);
    while (!existsSync(dirname(missing)) && dirname(missing) !== missing) missing = dirname(missing);
    mkdirSync(missing);
    throw error;
  }
};

/**
 * DATA_DIR holds password hashes, refresh-token hashes, addresses and keys: the owner's only (0700). A
 * folder that others may enter is tightened; the warning says what it was, for the operator.
 */
export const ownerOnlyDataDir = (dir: string): string | null => {
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return null;
  chmodSync(dir, 0o700);
  return `DATA_DIR ${dir} was mode ${mode.toString(8).padStart(4, '0')}, readable by others: set to 0700`;
};

/**
 * Makes sure the process can write in `dir` before it opens anything there: creates it, writes, syncs and
 * removes a probe file of `probeBytes`. A read-only, full or forbidden directory throws a StartupError
 * naming it and the cause, instead of a store failing later with a driver's message.
 */
export const checkDataDirWritable = (dir: string, { probeBytes = 64 * 1024 } = {}): void => {
  const probe = join(dir, `.write-probe-${randomUUID()}`);
  try {
    makeDirectory(dir);
    const fd = openSync(probe, 'w');
    try {
      writeSync(fd, Buffer.alloc(probeBytes));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw dataDirError(dir, error) ?? error;
  } finally {
    try {
      rmSync(probe, { force: true });
    } catch {
      // Nothing was created where nothing can be removed.
    }
  }
};
