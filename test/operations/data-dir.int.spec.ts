import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirCheck } from '../../infrastructure/operations/store-checks.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { ownerOnlyDataDir } from '../../infrastructure/storage/data-dir.ts';
import { pollUntil, startEmbeddedChild } from '../support/embedded-child.ts';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'order-service-data-dir-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('files of the stores are the owner’s only', () => {
  it('a database and its WAL and shared-memory files are 0600 under a permissive umask; its new folder 0700', () => {
    const previous = process.umask(0o002);
    try {
      const path = join(freshDir(), 'nested', 'store.sqlite');
      const db = openDatabase({ path });
      db.exec('CREATE TABLE t (x INTEGER)');
      db.exec('INSERT INTO t VALUES (1)');
      const files = readdirSync(join(path, '..'));
      expect(files.sort()).toEqual(['store.sqlite', 'store.sqlite-shm', 'store.sqlite-wal']);
      for (const file of files) expect(modeOf(join(path, '..', file))).toBe('600');
      expect(modeOf(join(path, '..'))).toBe('700');
      db.close();
    } finally {
      process.umask(previous);
    }
  });

  it('tightens an existing database file that others may read', () => {
    const path = join(freshDir(), 'store.sqlite');
    openDatabase({ path }).close();
    chmodSync(path, 0o644);
    openDatabase({ path }).close();
    expect(modeOf(path)).toBe('600');
  });

  it('tightens a DATA_DIR others may enter, and says what it was', () => {
    const dir = join(freshDir(), 'data');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    expect(ownerOnlyDataDir(dir)).toBe(`DATA_DIR ${dir} was mode 0755, readable by others: set to 0700`);
    expect(modeOf(dir)).toBe('700');
    expect(ownerOnlyDataDir(dir)).toBeNull();
  });
});

describe('the embedded default’s DATA_DIR', () => {
  it('is 0700 with every file in it 0600, and a looser existing folder is tightened with a warning', async () => {
    const dataDir = join(freshDir(), 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const service = await startEmbeddedChild(dataDir);
    try {
      await pollUntil('the warning', async () => (service.warnings.length > 0 ? true : undefined));
      expect(service.warnings.join('\n')).toContain('was mode 0755, readable by others: set to 0700');
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
          entry.isDirectory()
            ? [join(dir, entry.name), ...walk(join(dir, entry.name))]
            : [join(dir, entry.name)],
        );
      const loose = [dataDir, ...walk(dataDir)].filter((path) => (statSync(path).mode & 0o077) !== 0);
      expect(loose).toEqual([]);
      expect(walk(dataDir).length).toBeGreaterThanOrEqual(6);
    } finally {
      await service.kill('SIGTERM');
    }
  });
});

describe('GET /ready’s disk probe', () => {
  it('writes to disk at most once per interval: calls in between get the last answer', async () => {
    const dir = join(freshDir(), 'data');
    mkdirSync(dir);
    let now = 0;
    const check = dataDirCheck(dir, { intervalMs: 5_000, now: () => now });
    expect(await check()).toEqual({ status: 'ok' });
    // The folder is gone: a probe now would fail. Within the interval, none is made.
    rmSync(dir, { recursive: true });
    now = 4_999;
    expect(await check()).toEqual({ status: 'ok' });
    now = 5_000;
    await expect(check()).rejects.toThrow(/ENOENT/);
  });
});
