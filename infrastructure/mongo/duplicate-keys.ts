import { MongoBulkWriteError, type WriteError } from 'mongodb';

const duplicateKeyCode = 11000;

/**
 * The write errors of a bulk write when each is a duplicate key: null for any other failure. The driver
 * also wraps a failure of a whole command (a connection lost mid-write, the server killed) in a
 * MongoBulkWriteError, with no write errors at all; that is not "every write error a duplicate", and a
 * check that accepted it would take writes that never happened for done.
 */
export const duplicateKeyErrors = (error: unknown): WriteError[] | null => {
  if (!(error instanceof MongoBulkWriteError) || error.writeConcernError !== undefined) return null;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  if (writeErrors.length === 0) return null;
  return writeErrors.every((writeError) => writeError?.code === duplicateKeyCode) ? writeErrors : null;
};

/**
 * The indexes of the documents an unordered insertMany of `count` found there already, when that is all
 * that went wrong: every other document written. Null for any other failure (rethrow it).
 */
export const duplicatesOfInsert = (error: unknown, count: number): Set<number> | null => {
  const duplicates = duplicateKeyErrors(error);
  if (duplicates === null) return null;
  const { insertedCount } = error as MongoBulkWriteError;
  return insertedCount + duplicates.length === count
    ? new Set(duplicates.map((writeError) => writeError.index))
    : null;
};
