import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { createSqliteWebhookSubscriptionReadModel } from '../../projections/webhook-subscriptions/sqlite-subscription-read-model.ts';
import { createSqliteDeliveryLog } from '../../webhooks/deliveries/sqlite-delivery-log.ts';
import { createSqliteDeliveryQueue } from '../../webhooks/deliveries/sqlite-delivery-queue.ts';
import { deliveryLogContract } from '../contracts/delivery-log.contract.ts';
import { deliveryQueueContract } from '../contracts/delivery-queue.contract.ts';
import { webhookSubscriptionReadModelContract } from '../contracts/webhook-subscription-read-model.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'webhook-stores-'));
const db = openDatabase({ path: join(dir, 'read-store.sqlite') });
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

webhookSubscriptionReadModelContract('node:sqlite file', async () =>
  createSqliteWebhookSubscriptionReadModel(db),
);
deliveryQueueContract('node:sqlite file', async () => createSqliteDeliveryQueue(db));
deliveryLogContract('node:sqlite file', async () => createSqliteDeliveryLog(db));
