// Opens the read store the way a process does at start, once the test releases every worker at the same moment.
import { workerData, parentPort } from 'node:worker_threads';
import { createSqliteCatalogStore } from '../../catalog/sqlite-catalog-store.ts';
import { createSqliteRefreshTokenStore } from '../../infrastructure/auth/sqlite-refresh-token-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';

const { path, gate } = workerData as { path: string; gate: SharedArrayBuffer };
const flag = new Int32Array(gate);
parentPort!.postMessage('parked');
Atomics.wait(flag, 0, 0);
try {
  const db = openDatabase({ path });
  createSqliteRefreshTokenStore(db);
  createSqliteCatalogStore(db);
  db.close();
  parentPort!.postMessage('opened');
} catch (error) {
  parentPort!.postMessage(`failed: ${(error as Error).message}`);
}
