import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCachePurger, type CachePurgerDeps } from '../../query-api/catalog/cache-purger.ts';
import type { CatalogStore, Product } from '../../catalog/catalog.ts';
import { createPurgeMetrics } from '../../query-api/catalog/purge-metrics.ts';
import { httpPurgeSender } from '../../query-api/catalog/send-purge.ts';
import { createSqliteCatalogStore } from '../../catalog/sqlite-catalog-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { pollUntil } from '../support/embedded-child.ts';
import { startPurgeReceiver } from '../support/purge-receiver.ts';

// The purger alone, on a real node:sqlite store and caches on loopback, for what the service-level tests
// cannot arrange: a cache that never answers, the last attempt, many keys, no cache at all.
const dir = mkdtempSync(join(tmpdir(), 'cache-purger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let store: CatalogStore;
let closeStore: () => void;
let now: number;
let registry: Registry;
let purgers: { stop: () => Promise<void> }[];
beforeEach(() => {
  const db = openDatabase({ path: join(dir, `${randomUUID()}.sqlite`) });
  closeStore = () => db.close();
  store = createSqliteCatalogStore(db);
  now = Date.parse('2026-11-25T12:00:00Z');
  registry = new Registry();
  purgers = [];
});
afterEach(async () => {
  for (const purger of purgers) await purger.stop();
  closeStore();
});

const start = (urls: string[], options: Partial<CachePurgerDeps> = {}) => {
  const purger = startCachePurger({
    outbox: store.purges,
    urls,
    send: httpPurgeSender({ timeoutMs: 5000 }),
    now: () => now,
    logger: pino({ level: 'silent' }),
    metrics: createPurgeMetrics(registry),
    settleMs: 0,
    pollIntervalMs: 10,
    ...options,
  });
  purgers.push(purger);
  return purger;
};
const product = (id: number): Product => ({
  id,
  name: `Product ${id}`,
  priceMinor: 100,
  updatedAt: '2026-11-01T10:00:00.000Z',
  categoryId: 'kitchen',
  stock: null,
});
const importProducts = async (ids: number[]) =>
  (
    await store.importCatalog(
      { products: ids.map(product), categories: [{ id: 'kitchen', name: 'Kitchen' }] },
      { replace: false, at: new Date() },
    )
  ).purgeKeys;
const counted = async (outcome: string) =>
  (await registry.getSingleMetric('cache_purges_total')!.get()).values.find(
    (value) => value.labels['outcome'] === outcome,
  )?.value;

describe('the cache purger', () => {
  it('settles purges with nothing to send when no cache is configured', async () => {
    await importProducts([1]);
    start([]);
    await pollUntil(
      'the purge settled',
      async () => (await store.purges.due({ now, limit: 10 })).length === 0,
    );
    expect(await counted('sent')).toBe(0);
  });

  it('sends many keys in several requests, each header under 4,000 characters, all keys once', async () => {
    const cache = await startPurgeReceiver();
    try {
      const keys = await importProducts(Array.from({ length: 600 }, (_, n) => 100_000 + n));
      start([cache.url]);
      await pollUntil('every key purged', () => cache.received.flatMap((p) => p.keys).length >= keys.length);
      expect(cache.received.length).toBeGreaterThan(1);
      for (const purge of cache.received) expect(purge.keys.join(' ').length).toBeLessThanOrEqual(4000);
      expect(cache.received.flatMap((purge) => purge.keys).sort()).toEqual([...keys].sort());
      await pollUntil('counted once', async () => (await counted('sent')) === 1);
    } finally {
      await cache.close();
    }
  });

  it('gives a purge up after its last attempt, counting it abandoned for the cache that failed', async () => {
    const [healthy, failing] = [await startPurgeReceiver(), await startPurgeReceiver()];
    try {
      failing.failNext(500, 500);
      const keys = await importProducts([1]);
      start([healthy.url, failing.url], { maxAttempts: 2 });
      await pollUntil('the first failure', async () => (await counted('failed')) === 1);
      now += 1000;
      await pollUntil('given up', async () => (await counted('abandoned')) === 1);
      expect(failing.received.map((purge) => purge.keys)).toEqual([keys, keys]);
      expect(healthy.received.map((purge) => purge.keys)).toEqual([keys]);
      now += 3_600_000;
      expect(await store.purges.due({ now, limit: 10 })).toEqual([]);
    } finally {
      await healthy.close();
      await failing.close();
    }
  });

  describe('with a cache that takes the request and never answers', () => {
    let hanging: Server;
    let accepted = 0;
    beforeEach(async () => {
      hanging = createServer(() => accepted++);
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    });
    afterEach(
      () =>
        new Promise<void>((resolve) => {
          hanging.close(() => resolve());
          hanging.closeAllConnections();
        }),
    );

    it('stops at once, and the purge goes again once its lease ran out', async () => {
      await importProducts([1]);
      const purger = start([`http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`]);
      await pollUntil('the request under way', () => accepted === 1);
      const stopping = performance.now();
      await purger.stop();
      expect(performance.now() - stopping).toBeLessThan(1000);
      expect(await counted('failed')).toBe(0);
      expect(await store.purges.due({ now, limit: 10 })).toEqual([]);
      expect(await store.purges.due({ now: now + 60_000, limit: 10 })).toHaveLength(1);
    });
  });
});
