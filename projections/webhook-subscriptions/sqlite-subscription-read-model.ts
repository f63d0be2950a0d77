import type { DatabaseSync } from 'node:sqlite';
import { inWriteTransaction } from '../../infrastructure/sqlite/open-database.ts';
import type { WebhookSubscriptionReadModel } from './subscription-read-model.ts';
import {
  isLive,
  nextSubscriptionView,
  type LiveSubscriptionView,
  type WebhookSubscriptionView,
} from '../../webhooks/subscription-view.ts';
import { isSubscriptionStream, subscriptionIdOf } from '../../domain/webhook-subscriptions/subscription.ts';

/** Subscriptions in a node:sqlite table: a handful of rows, each a JSON document. */
export const createSqliteWebhookSubscriptionReadModel = (db: DatabaseSync): WebhookSubscriptionReadModel => {
  db.exec(`
    CREATE TABLE IF NOT EXISTS webhook_subscriptions (
      id         TEXT    PRIMARY KEY,
      status     TEXT    NOT NULL,
      created_at TEXT    NOT NULL,
      revision   INTEGER NOT NULL,
      document   TEXT    NOT NULL
    );
  `);
  const select = db.prepare('SELECT document FROM webhook_subscriptions WHERE id = ?');
  const selectLive = db.prepare(
    `SELECT document FROM webhook_subscriptions WHERE status <> 'removed' ORDER BY created_at, id`,
  );
  const selectActive = db.prepare(
    `SELECT document FROM webhook_subscriptions WHERE status = 'active' ORDER BY created_at, id`,
  );
  const upsert = db.prepare(
    `INSERT INTO webhook_subscriptions (id, status, created_at, revision, document) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, revision = excluded.revision, document = excluded.document`,
  );

  const read = (id: string): WebhookSubscriptionView | null => {
    const row = select.get(id) as { document: string } | undefined;
    return row ? (JSON.parse(row.document) as WebhookSubscriptionView) : null;
  };
  const documents = (rows: unknown[]) =>
    rows.map((row) => JSON.parse((row as { document: string }).document) as LiveSubscriptionView);

  return {
    async applyEvents(events) {
      inWriteTransaction(db, () => {
        for (const event of events) {
          if (!isSubscriptionStream(event.streamId)) continue;
          const id = subscriptionIdOf(event.streamId);
          const next = nextSubscriptionView(read(id), event);
          if (!next) continue;
          const createdAt = next.status === 'removed' ? '' : next.createdAt;
          upsert.run(id, next.status, createdAt, next.revision, JSON.stringify(next));
        }
      });
    },
    async get(id) {
      const view = read(id);
      return isLive(view) ? view : null;
    },
    async list() {
      return documents(selectLive.all());
    },
    async subscribedTo(kind) {
      return documents(selectActive.all()).filter((view) => view.events.includes(kind));
    },
  };
};
