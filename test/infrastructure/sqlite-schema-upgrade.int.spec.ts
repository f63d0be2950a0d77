import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';

const dir = mkdtempSync(join(tmpdir(), 'schema-upgrade-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The tables as the first release made them, before sessions and stock had columns of their own. */
const firstReleaseTables = `
  CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY, family_id TEXT NOT NULL, user_id TEXT NOT NULL, issued_at TEXT NOT NULL,
    expires_at TEXT NOT NULL, used_at TEXT, family_revoked_at TEXT
  ) WITHOUT ROWID;
  CREATE TABLE catalog_products (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_folded TEXT NOT NULL, price_minor INTEGER NOT NULL,
    updated_at TEXT NOT NULL, category_id TEXT NOT NULL
  );
`;

const columnsOf = (path: string, table: string) => {
  const db = openDatabase({ path });
  const names = (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map(
    (column) => column.name,
  );
  db.close();
  return names;
};

describe('a read store from an earlier release', () => {
  // The race between two openers is a window of microseconds: eight files, each opened by six at once
  // (before the fix, about half of the rounds failed).
  it.each(Array.from({ length: 8 }, (_, round) => round))(
    'is upgraded once when six processes open it at the same moment (round %i)',
    async (round) => {
      const path = join(dir, `read-store-${round}.sqlite`);
      const old = openDatabase({ path });
      old.exec(firstReleaseTables);
      old.close();

      const gate = new SharedArrayBuffer(4);
      const workers = Array.from(
        { length: 6 },
        () =>
          new Worker(new URL('../support/open-stores-worker.ts', import.meta.url), {
            workerData: { path, gate },
          }),
      );
      const next = (worker: Worker) =>
        new Promise<string>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
        });
      await Promise.all(workers.map(next)); // every worker parked on the gate
      const outcomes = workers.map(next);
      Atomics.store(new Int32Array(gate), 0, 1);
      Atomics.notify(new Int32Array(gate), 0);
      expect(await Promise.all(outcomes)).toEqual(Array(6).fill('opened'));
      await Promise.all(workers.map((worker) => worker.terminate()));

      expect(columnsOf(path, 'refresh_tokens')).toEqual(
        expect.arrayContaining(['session_started_at', 'client_address', 'user_agent']),
      );
      expect(columnsOf(path, 'catalog_products')).toContain('stock');
    },
  );
});
