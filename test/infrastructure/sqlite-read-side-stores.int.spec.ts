import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteIdempotencyStore } from '../../command-api/idempotency/sqlite-idempotency-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { createSqliteCheckpointStore } from '../../infrastructure/event-sourcing/sqlite-checkpoint-store.ts';
import {
  createSqliteOrderReadModel,
  sqliteScratchOrderReadModel,
} from '../../projections/orders/sqlite-order-read-model.ts';
import { idempotencyStoreContract } from '../contracts/idempotency-store.contract.ts';
import { checkpointStoreContract } from '../contracts/checkpoint-store.contract.ts';
import { orderReadModelContract } from '../contracts/order-read-model.contract.ts';
import { placeCommand, recordedHistory } from '../support/order-history.ts';

const dir = mkdtempSync(join(tmpdir(), 'projection-stores-'));
const db = openDatabase({ path: join(dir, 'read-store.sqlite') });
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

orderReadModelContract('node:sqlite file', async () => createSqliteOrderReadModel(db));
// A rebuild's scratch table, through its write-behind cache: so small that orders keep leaving it.
orderReadModelContract(
  'node:sqlite scratch table, write-behind cache of 2 orders',
  async () => sqliteScratchOrderReadModel(db, { cachedOrders: 2 }).model,
);
describe('the node:sqlite order read model', () => {
  it('answers unchanged for the view it last handed out while the document stays the same, which the contract allows and the query side relies on', async () => {
    const model = await createSqliteOrderReadModel(db);
    const { orderId, events } = recordedHistory((id) => [placeCommand(id)]);
    await model.applyEvents(events);
    expect(await model.getOrderIfChanged(orderId, -1)).toMatchObject({ id: orderId, revision: 0 });
    expect(await model.getOrderIfChanged(orderId, 0)).toBe('unchanged');
    expect(await model.getOrderIfChanged(orderId, 1)).toMatchObject({ id: orderId, revision: 0 });
    // The same revision with another document, written by another connection (the admin CLI's repair):
    // not unchanged, though nothing this connection did says so.
    const other = openDatabase({ path: join(dir, 'read-store.sqlite') });
    other
      .prepare(`UPDATE order_views SET document = json_set(document, '$.note', 'repaired') WHERE id = ?`)
      .run(orderId);
    other.close();
    expect(await model.getOrderIfChanged(orderId, 0)).toMatchObject({ note: 'repaired', revision: 0 });
    expect(await model.getOrderIfChanged(orderId, 0)).toBe('unchanged');
    // Swapped for a rebuilt table by this very connection: read again, not taken as unchanged.
    const scratch = sqliteScratchOrderReadModel(db);
    await scratch.model.applyEvents(events);
    await scratch.loaded();
    await scratch.promote();
    expect(await model.getOrderIfChanged(orderId, 0)).toMatchObject({ revision: 0, note: null });
  });
});
checkpointStoreContract('node:sqlite file', async () => createSqliteCheckpointStore(db));
idempotencyStoreContract('node:sqlite file', async () => createSqliteIdempotencyStore(db));
