import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedTestService } from '../support/distributed-service.ts';
import { postJson } from '../support/http.ts';
import { requiredServer } from '../support/integration-env.ts';
import type { MongoCommand, QueryShape } from '../support/mongo-command-counter.ts';
import { orderActor } from '../support/orders.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';
import { tokenOf } from '../support/consistency-tokens.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';

// Every query the distributed mode sends is served by an index: traffic like the HTTP suite's runs through
// the four processes (orders placed, moved, listed every way; the catalogue; identity; webhooks delivered
// and inspected), each process reports every command it sends (driver command monitoring), and each query
// shape (filter fields, sort fields) is checked against the indexes the adapters created at start. A shape
// no index serves scans its collection on a real MongoDB, and fails here.

type Service = Awaited<ReturnType<typeof startDistributedTestService>>;
const report = (text: string) => process.stdout.write(`  [query indexes] ${text}\n`);

/**
 * Collections read whole on purpose, and why: nothing here grows with the orders.
 * - the catalogue, loaded into memory by the snapshot and the catalogue import (small, and read-only to
 *   the service);
 * - the checkpoint positions (one document).
 */
const readWhole: ReadonlySet<string> = new Set(['catalog_products', 'catalog_categories']);
/** Emptied whole on purpose: the order read model, before a new version of it is rebuilt from the log. */
const emptiedWhole = new Set(['order_views']);

/** Whether an index with these key fields serves a query with this shape. */
const serves = (index: readonly string[], { filter, sort }: QueryShape): boolean => {
  const inFilter = (field: string) => filter.includes(field);
  if (sort.length === 0) return filter.length > 0 && inFilter(index[0]!);
  // Equality (or range) fields first, then the sort fields in order: the index walks in the sort's order.
  for (let prefix = 0; prefix <= index.length - sort.length; prefix++) {
    if (!index.slice(0, prefix).every(inFilter)) break;
    if (sort.every((field, at) => index[prefix + at] === field)) {
      // Without a filter field before the sort, the walk is the whole index, unless the filter is a range
      // on the sort fields themselves (a keyset page).
      if (prefix > 0 || filter.every((field) => sort.includes(field))) return true;
    }
  }
  return false;
};

const describeShape = (collection: string, { filter, sort }: QueryShape) =>
  `${collection} {${filter.join(', ')}}${sort.length > 0 ? ` sort [${sort.join(', ')}]` : ''}`;

describe('query shapes and indexes of the distributed mode', () => {
  let service: Service;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    service = await startDistributedTestService(
      { ...loadTestWriteLimits, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
      { time: 'real', countMongoCommands: true },
    );
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
  });

  const runTraffic = async () => {
    const customer = await orderActor(service, ['customer']);
    const staff = await orderActor(service, ['staff']);
    const admin = await webhookAdmin(service);
    const subscription = await admin.register(receiver.url);
    // Identity: a refresh, the caller's profile and addresses, a revocation.
    const refreshed = await postJson(`${service.url}/auth/token/refresh`, {
      refresh_token: customer.tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    for (const path of ['/users/me', '/users/me/addresses', '/users/me/sessions']) {
      expect((await customer.get(path)).status).toBe(200);
    }
    // Orders: placed, moved along, paid, cancelled.
    const placed = [];
    for (let index = 0; index < 4; index++) placed.push((await customer.placeOrder()).order.id);
    const [first, second, third] = placed as [string, string, string];
    for (const action of ['confirm', 'ship', 'deliver']) {
      expect((await staff.post(`/orders/${first}/${action}`)).status).toBe(200);
    }
    expect((await staff.post(`/orders/${second}/confirm`)).status).toBe(200);
    expect(
      (
        await staff.post(`/orders/${second}/payments`, {
          amount: { amount: 1, currency: 'EUR' },
          reference: 'r-1',
        })
      ).status,
    ).toBe(200);
    const cancelled = await customer.post(`/orders/${third}/cancel`, { reason: 'changed my mind' });
    expect(cancelled.status).toBe(200);
    const token = cancelled.headers.get('consistency-token')!;
    // Reads: by id, its history, every listing: filters, pages, cursors, both directions.
    for (const reader of [customer, staff]) {
      expect(
        (await reader.get(`/orders/${first}`, { 'Consistency-Token': tokenOf(service, reader, token) }))
          .status,
      ).toBe(200);
      expect((await reader.get(`/orders/${first}/events`)).status).toBe(200);
      expect((await reader.get(`/orders/${first}?revision=1`)).status).toBe(reader === staff ? 200 : 403);
      for (const query of [
        '',
        '?status=pending',
        '?page=2&perPage=1',
        '?status=confirmed&page=1&perPage=2',
        '?minTotal=1&maxTotal=500',
        '?cursor=&maxTotal=500&perPage=1',
      ]) {
        expect((await reader.get(`/orders${query}`)).status).toBe(200);
      }
      const byCursor = (await (await reader.get('/orders?cursor=&perPage=1')).json()) as {
        links: { next: string | null };
      };
      const next = await reader.get(byCursor.links.next!);
      expect(next.status).toBe(200);
      const { links } = (await next.json()) as { links: { prev: string | null } };
      expect((await reader.get(links.prev!)).status).toBe(200);
      expect((await reader.get(`${byCursor.links.next!}&status=pending`)).status).toBe(200);
    }
    // The catalogue.
    for (const path of [
      '/products',
      '/products/1001',
      '/products/1001/stock',
      '/categories',
      '/search?q=cup',
    ]) {
      expect((await customer.get(path)).status).toBe(200);
    }
    const category = ((await (await customer.get('/categories')).json()) as { id: string }[])[0]!;
    expect((await customer.get(`/categories/${category.id}`)).status).toBe(200);
    // Audit: the log itself, and the auditor's account.
    const auditor = await orderActor(service, ['auditor']);
    expect((await auditor.get('/audit/events?limit=5')).status).toBe(200);
    // Webhooks: deliveries made, listed, retried; the subscription read, tested, removed.
    await receiver.waitFor((all) => all.length >= 8, 30_000);
    const attempts = await admin.attempts(subscription.id);
    expect(attempts.length).toBeGreaterThan(0);
    expect((await admin.get('/webhooks')).status).toBe(200);
    expect((await admin.get(`/webhooks/${subscription.id}`)).status).toBe(200);
    expect((await admin.post(`/webhooks/${subscription.id}/test`)).status).toBe(202);
    const retried = await admin.post(
      `/webhooks/${subscription.id}/deliveries/${attempts[0]!.deliveryId}/retry`,
    );
    expect(retried.status).toBe(202);
    await receiver.waitFor((all) => all.length >= 10, 30_000);
    expect((await admin.send('DELETE', `/webhooks/${subscription.id}`)).status).toBe(204);
    const revoked = await postJson(
      `${service.url}/auth/revoke`,
      { token: customer.tokens.access_token },
      customer.auth,
    );
    expect(revoked.status).toBeLessThan(300);
  };

  it('serves every query shape the adapters send with an index they created', async () => {
    await runTraffic();
    await service.mongoCommands.flush();
    const commands = service.mongoCommands.log.all();

    const client = await MongoClient.connect(requiredServer('MONGODB_URL'));
    const indexes = new Map<string, string[][]>();
    try {
      const db = client.db(service.processes.database);
      for (const { name } of await db.listCollections().toArray()) {
        const listed = await db.collection(name).listIndexes().toArray();
        indexes.set(
          name,
          listed.map((index) => Object.keys(index['key'] as Record<string, unknown>)),
        );
      }
    } finally {
      await client.close();
    }

    const shapes = new Map<string, { collection: string; shape: QueryShape; by: Set<string> }>();
    for (const command of commands as MongoCommand[]) {
      if (!command.collection) continue;
      const whole = command.shapes.every((shape) => shape.filter.length === 0);
      if (whole && command.name === 'delete' && emptiedWhole.has(command.collection)) continue;
      // A count of everything (estimatedDocumentCount) is answered from the collection's metadata.
      if (whole && command.name === 'count') continue;
      for (const shape of command.shapes) {
        const key = describeShape(command.collection, shape);
        const entry = shapes.get(key) ?? { collection: command.collection, shape, by: new Set<string>() };
        entry.by.add(`${command.instance} ${command.name}`);
        shapes.set(key, entry);
      }
    }
    const unserved: string[] = [];
    for (const [key, { collection, shape, by }] of [...shapes].sort(([a], [b]) => a.localeCompare(b))) {
      const ok =
        (shape.filter.length === 0 && readWhole.has(collection)) ||
        (indexes.get(collection) ?? [['_id']]).some((index) => serves(index, shape));
      report(`${ok ? 'ok ' : 'NO '} ${key}  (${[...by].join('; ')})`);
      if (!ok) unserved.push(`${key} (${[...by].join('; ')})`);
    }
    report(`${shapes.size} query shapes from ${commands.length} commands`);
    expect(shapes.size).toBeGreaterThan(15);
    expect(unserved, `query shapes no index serves:\n${unserved.join('\n')}`).toEqual([]);
  });
});
