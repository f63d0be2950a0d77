import type { DatabaseSync } from 'node:sqlite';
import { inWriteTransaction } from '../sqlite/open-database.ts';
import type { CheckpointStore } from './checkpoints.ts';

export const createSqliteCheckpointStore = (db: DatabaseSync): CheckpointStore => {
  db.exec(`CREATE TABLE IF NOT EXISTS projection_checkpoints (
    projection TEXT PRIMARY KEY,
    position   TEXT NOT NULL
  ) WITHOUT ROWID`);
  const select = db.prepare('SELECT position FROM projection_checkpoints WHERE projection = ?');
  const upsert = db.prepare(
    `INSERT INTO projection_checkpoints (projection, position) VALUES (?, ?)
     ON CONFLICT (projection) DO UPDATE SET position = excluded.position`,
  );
  const save = (projection: string, position: bigint) => {
    upsert.run(projection, position.toString());
  };
  return {
    async load(projection) {
      const row = select.get(projection) as { position: string } | undefined;
      return row ? BigInt(row.position) : undefined;
    },
    async save(projection, position) {
      save(projection, position);
    },
    async saveAll(positions) {
      inWriteTransaction(db, () => {
        for (const [projection, position] of positions) save(projection, position);
      });
    },
  };
};
