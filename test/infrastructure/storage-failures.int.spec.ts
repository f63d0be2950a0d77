import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Router } from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { StartupError } from '../../infrastructure/process/startup-error.ts';
import { checkDataDirWritable } from '../../infrastructure/storage/data-dir.ts';
import { storageFailureOf } from '../../infrastructure/storage/storage-failure.ts';
import { problemOf } from '../support/http.ts';
import { startTestApp } from '../support/test-app.ts';

// Full, read-only and failing disks, as SQLite and Node report them. The real file systems are in
// test/faults/disk.e2e.spec.ts (it needs root); here SQLite's own limits make the same errors.

const dir = mkdtempSync(join(tmpdir(), 'storage-failures-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A database that holds at most a few pages: past them SQLite answers SQLITE_FULL, as on a full disk. */
const fullDatabase = () => {
  const db = new DatabaseSync(join(dir, `full-${Math.random()}.sqlite`));
  db.exec('CREATE TABLE t (x TEXT)');
  db.exec(
    `PRAGMA max_page_count = ${(db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count}`,
  );
  return db;
};
const errorOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('it did not fail');
};

describe('storage failures', () => {
  it("recognises SQLite's full, read-only and I/O errors, and the errnos of a full or read-only disk", () => {
    const full = fullDatabase();
    expect(
      storageFailureOf(errorOf(() => full.exec(`INSERT INTO t VALUES ('${'x'.repeat(8192)}')`))),
    ).toEqual({
      cause: 'full',
      code: 'SQLITE_FULL',
    });
    const path = join(dir, 'read-only.sqlite');
    new DatabaseSync(path).exec('CREATE TABLE t (x TEXT)');
    const readOnly = new DatabaseSync(path, { readOnly: true });
    expect(storageFailureOf(errorOf(() => readOnly.exec("INSERT INTO t VALUES ('x')")))).toEqual({
      cause: 'read-only',
      code: 'SQLITE_READONLY',
    });
    // SQLITE_IOERR_WRITE, as SQLite reports a write to a file system the kernel turned read-only.
    const ioError = Object.assign(new Error('disk I/O error'), { code: 'ERR_SQLITE_ERROR', errcode: 778 });
    expect(storageFailureOf(ioError)).toEqual({ cause: 'io-error', code: 'SQLITE_IOERR' });
    const noSpace = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    expect(storageFailureOf(noSpace)).toEqual({ cause: 'full', code: 'ENOSPC' });
    expect(storageFailureOf(new Error('wrapped', { cause: noSpace }))).toEqual({
      cause: 'full',
      code: 'ENOSPC',
    });
  });

  it('does not take other errors for storage failures', () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (x TEXT PRIMARY KEY)');
    db.exec("INSERT INTO t VALUES ('x')");
    expect(storageFailureOf(errorOf(() => db.exec("INSERT INTO t VALUES ('x')")))).toBeUndefined();
    expect(storageFailureOf(errorOf(() => db.exec('SELECT * FROM missing')))).toBeUndefined();
    expect(storageFailureOf(new Error('boom'))).toBeUndefined();
    expect(storageFailureOf('ENOSPC')).toBeUndefined();
  });

  it('answers a request whose write fails so with 503 storage-unavailable and Retry-After', async () => {
    const full = fullDatabase();
    const router = Router().post('/things', (_request, response) => {
      full.exec(`INSERT INTO t VALUES ('${'x'.repeat(8192)}')`);
      response.status(201).end();
    });
    const app = await startTestApp([router]);
    try {
      const response = await fetch(`${app.url}/things`, { method: 'POST' });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('10');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const problem = await problemOf(response);
      expect(problem).toEqual({
        type: 'https://orders.example/problems/storage-unavailable',
        title: 'Service Unavailable',
        status: 503,
        detail: 'The service cannot write to its storage now, so the request was not completed. Retry later.',
        instance: '/things',
      });
      const page = await fetch(`${app.url}/problems/storage-unavailable`);
      expect(await page.json()).toMatchObject({ kind: 'storage-unavailable', status: 503 });
    } finally {
      await app.close();
    }
  });

  it('checks that DATA_DIR can be written, naming it and the cause when it cannot, and leaves nothing', () => {
    const dataDir = join(dir, 'data', 'nested');
    checkDataDirWritable(dataDir);
    expect(readdirSync(dataDir)).toEqual([]);

    writeFileSync(join(dir, 'a-file'), '');
    const notADirectory = join(dir, 'a-file', 'data');
    const error = errorOf(() => checkDataDirWritable(notADirectory));
    expect(error).toBeInstanceOf(StartupError);
    expect((error as StartupError).message).toBe(
      `DATA_DIR ${notADirectory} cannot be written: a part of the path is a file, not a directory (ENOTDIR)`,
    );
    expect((error as StartupError).exitCode).toBe(73);
    expect(existsSync(notADirectory)).toBe(false);
  });
});
