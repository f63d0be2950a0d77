import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_STREAM } from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { requiredServer } from '../support/integration-env.ts';
import { placeCommand, recordedHistory } from '../support/order-history.ts';
import { runAdmin } from '../support/run-admin.ts';

const database = `admin_cli_${randomUUID().replaceAll('-', '')}`;
afterAll(async () => {
  const client = await MongoClient.connect(requiredServer('MONGODB_URL'));
  await client.db(database).dropDatabase();
  await client.close();
});

describe('npm run admin -- user:* with MONGODB_URL (the distributed mode store)', () => {
  it('adds a user to MongoDB and lists it from there', async () => {
    const env = {
      MONGODB_URL: requiredServer('MONGODB_URL'),
      MONGODB_DATABASE: database,
      DATA_DIR: '/nonexistent',
    };
    const added = await runAdmin(
      ['user:add', '--email', 'mongo@shop.example', '--password', 'mongo-password', '--role', 'admin'],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    const listed = await runAdmin(['user:list'], env);
    expect(listed.stdout).toMatch(/mongo@shop\.example {2}mongo@shop\.example {2}\[admin\]/);

    const client = await MongoClient.connect(requiredServer('MONGODB_URL'));
    const stored = await client.db(database).collection('users').findOne({ email: 'mongo@shop.example' });
    await client.close();
    expect(stored?.['passwordHash']).toMatch(/^scrypt\$N=32768,r=8,p=3\$/);
  });

  it('imports the demo catalogue into MongoDB', async () => {
    const env = { MONGODB_URL: requiredServer('MONGODB_URL'), MONGODB_DATABASE: database };
    const demo = fileURLToPath(new URL('../../catalog/demo-catalog.json', import.meta.url));
    const imported = await runAdmin(['catalog:import', demo], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(
      `imported 60 products in 6 categories (added or updated) into the MongoDB database ${database}`,
    );
    const client = await MongoClient.connect(requiredServer('MONGODB_URL'));
    expect(await client.db(database).collection('catalog_products').countDocuments()).toBe(60);
    await client.close();
  });
});

describe('npm run admin -- projections:* with MONGODB_URL', () => {
  it('rebuilds the MongoDB order read model from the log, verifies it, and reports a tampered order', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'admin-cli-mongo-'));
    const log = createSqliteEventStore({ path: join(dataDir, 'events.sqlite') });
    const orderIds: string[] = [];
    for (let index = 0; index < 3; index++) {
      const { orderId, events } = recordedHistory((id) => [
        placeCommand(id),
        { type: 'ConfirmOrder', data: { orderId: id, confirmedAt: '2026-11-21T11:00:00.000Z' } },
      ]);
      orderIds.push(orderId);
      await log.appendToStream(
        events[0]!.streamId,
        events.map(({ id, type, data, metadata }) => ({ id, type, data, metadata })),
        { expectedRevision: NO_STREAM },
      );
    }
    await log.close();
    const env = { MONGODB_URL: requiredServer('MONGODB_URL'), MONGODB_DATABASE: database, DATA_DIR: dataDir };
    try {
      const rebuilt = await runAdmin(['projections:rebuild'], env);
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      expect(rebuilt.stdout).toContain('rebuilt the order read model from 6 events');
      const verified = await runAdmin(['projections:verify'], env);
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stdout).toContain('OK: the 3 orders of the read model match');

      const client = await MongoClient.connect(requiredServer('MONGODB_URL'));
      await client
        .db(database)
        .collection<{ _id: string }>('order_views')
        .updateOne({ _id: orderIds[0]! }, { $set: { status: 'shipped' } });
      // An order the log never had: the rebuild must prune it.
      await client
        .db(database)
        .collection<{ _id: string; createdAt: string }>('order_views')
        .insertOne({ _id: randomUUID(), createdAt: '2026-11-21T09:00:00.000Z' });
      await client.close();
      const mismatch = await runAdmin(['projections:verify'], env);
      expect(mismatch.code).toBe(1);
      expect(mismatch.stdout).toContain(`order ${orderIds[0]}: differs from the log (status)`);
      expect(mismatch.stdout).toContain('not in the log');
      expect((await runAdmin(['projections:rebuild'], env)).code).toBe(0);
      expect((await runAdmin(['projections:verify'], env)).code).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
