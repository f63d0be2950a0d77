import type { DatabaseSync } from 'node:sqlite';
import { inWriteTransaction } from './open-database.ts';

/**
 * Adds the columns a table gained after its first release, once, whoever opens the file first.
 * Several processes may open one file at the same moment (the service and admin commands), so the
 * check is repeated inside a write transaction: the loser of the race finds the column present.
 */
export const addMissingColumns = (db: DatabaseSync, table: string, columns: Record<string, string>) => {
  const missing = () => {
    const present = new Set(
      (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map(
        (c) => c.name,
      ),
    );
    return Object.entries(columns).filter(([name]) => !present.has(name));
  };
  if (missing().length === 0) return;
  inWriteTransaction(db, () => {
    for (const [name, type] of missing()) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
  });
};
