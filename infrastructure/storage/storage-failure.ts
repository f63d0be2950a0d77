/**
 * Failures of the disk under a store, as opposed to bugs: the disk is full, read-only, failing, or the
 * process may not write there. Recognised on node:sqlite errors (by SQLite's primary result code) and on
 * Node's file-system errors (by errno name), so that every layer names them the same way: the HTTP error
 * middleware answers them with 503 storage-unavailable, and start-up reports them in one line.
 */
export type StorageFailure = {
  cause: 'full' | 'read-only' | 'io-error' | 'not-permitted' | 'not-a-directory';
  /** The code that said so: an errno name (ENOSPC) or SQLite's result code name (SQLITE_FULL). */
  code: string;
};

// SQLite's primary result codes (the low byte of an extended code such as SQLITE_IOERR_WRITE, 778).
const sqliteCodes: Record<number, StorageFailure> = {
  8: { cause: 'read-only', code: 'SQLITE_READONLY' },
  10: { cause: 'io-error', code: 'SQLITE_IOERR' },
  13: { cause: 'full', code: 'SQLITE_FULL' },
  14: { cause: 'io-error', code: 'SQLITE_CANTOPEN' },
};

const errnoCodes: Record<string, StorageFailure['cause']> = {
  ENOSPC: 'full',
  EDQUOT: 'full',
  EROFS: 'read-only',
  EIO: 'io-error',
  EACCES: 'not-permitted',
  EPERM: 'not-permitted',
  ENOTDIR: 'not-a-directory',
};

/** What kind of storage failure `error` is (looking through `cause` too), or undefined for anything else. */
export const storageFailureOf = (error: unknown, depth = 0): StorageFailure | undefined => {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  const { code, errcode, cause } = error as { code?: unknown; errcode?: unknown; cause?: unknown };
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') {
    const failure = sqliteCodes[errcode & 0xff];
    if (failure) return failure;
  }
  if (typeof code === 'string' && Object.hasOwn(errnoCodes, code)) return { cause: errnoCodes[code]!, code };
  return storageFailureOf(cause, depth + 1);
};

const causes: Record<StorageFailure['cause'], string> = {
  full: 'the disk is full',
  'read-only': 'the file system is read-only',
  'io-error': 'the disk failed to read or write',
  'not-permitted': 'this process may not write there',
  'not-a-directory': 'a part of the path is a file, not a directory',
};

/** "the disk is full (ENOSPC)", with `more` inside the parentheses: what an operator reads. */
export const describeStorageFailure = ({ cause, code }: StorageFailure, more = ''): string =>
  `${causes[cause]} (${code}${more})`;
