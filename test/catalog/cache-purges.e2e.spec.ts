import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCachePurger } from '../../query-api/catalog/cache-purger.ts';
import type { Product } from '../../catalog/catalog.ts';
import { createPurgeMetrics } from '../../query-api/catalog/purge-metrics.ts';
import { httpPurgeSender } from '../../query-api/catalog/send-purge.ts';
import { pollUntil } from '../support/embedded-child.ts';
import { startPurgeReceiver, type PurgeReceiver } from '../support/purge-receiver.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let caches: PurgeReceiver[];
beforeAll(async () => {
  caches = [await startPurgeReceiver(), await startPurgeReceiver()];
  service = await startTestService({
    CACHE_PURGE_URLS: caches.map((cache) => cache.url).join(','),
    CATALOG_REFRESH_INTERVAL_MS: '50',
  });
});
afterAll(async () => {
  await service.stop();
  for (const cache of caches) await cache.close();
});

const sameKeys = (a: string[], b: string[]) => [...a].sort().join(' ') === [...b].sort().join(' ');
/** How many purges of exactly these keys a cache received. */
const receivedBy = (cache: PurgeReceiver, keys: string[]) =>
  cache.received.filter((purge) => sameKeys(purge.keys, keys)).length;
const untilReceived = (keys: string[], times = 1, at = caches) =>
  pollUntil(`a purge of ${keys.join(' ')} at ${at.length} caches`, () =>
    at.every((cache) => receivedBy(cache, keys) >= times),
  );

/** An import changing one product, as the admin CLI makes it. */
const change = async (id: number, changes: Partial<Product>) => {
  const product = (await service.catalog.getProduct(id))!;
  const { purgeKeys } = await service.catalog.importCatalog(
    { products: [{ ...product, ...changes }], categories: [] },
    { replace: false, at: new Date() },
  );
  return purgeKeys;
};
const newPrice = (id: number) => change(id, { priceMinor: 1000 + id, updatedAt: new Date().toISOString() });

const purgeCount = async (outcome: string) => {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return Number(new RegExp(`^cache_purges_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
};

describe('cache purges on every change of the catalogue', () => {
  it('purges every key of the demo catalogue once it is seeded: PURGE / with xkey-purge', async () => {
    const keys = [
      'products',
      'categories',
      'search',
      ...(await service.catalog.listProducts()).map((p) => `product-${p.id}`),
      ...(await service.catalog.listCategories()).map((c) => `category-${c.id}`),
    ];
    await untilReceived(keys);
    for (const cache of caches) {
      expect(cache.received[0]).toEqual({ method: 'PURGE', path: '/', keys: expect.any(Array) });
      expect(receivedBy(cache, keys)).toBe(1);
    }
  });

  it('purges exactly what an import changed, once per cache, never an unchanged product', async () => {
    const before = caches.map((cache) => cache.received.length);
    expect(await newPrice(1005)).toEqual(['product-1005', 'products']);
    await untilReceived(['product-1005', 'products']);
    // A later change arriving shows the first was not sent again meanwhile.
    expect(await change(1006, { stock: 1 })).toEqual(['product-1006']);
    await untilReceived(['product-1006']);
    for (const [n, cache] of caches.entries()) {
      expect(cache.received.slice(before[n]).map((purge) => purge.keys)).toEqual([
        ['product-1005', 'products'],
        ['product-1006'],
      ]);
    }
  });

  it('retries a cache that failed, after a backoff, and only that cache; counts each outcome in /metrics', async () => {
    const [healthy, failing] = caches as [PurgeReceiver, PurgeReceiver];
    const [sent, failed] = [await purgeCount('sent'), await purgeCount('failed')];
    failing.failNext(503);
    const keys = await newPrice(1007);
    await untilReceived(keys);
    await pollUntil('the failure counted', async () => (await purgeCount('failed')) === failed + 1);
    expect(await purgeCount('sent')).toBe(sent + 1);
    // Due again 1 s later by the service's clock: not before.
    await service.clock.advance(999);
    await change(1006, { stock: 2 });
    await untilReceived(['product-1006'], 2);
    expect(receivedBy(failing, keys)).toBe(1);

    await service.clock.advance(1);
    await untilReceived(keys, 2, [failing]);
    expect(receivedBy(healthy, keys)).toBe(1);
    // The healthy cache's, the second change's at both, and the retry's.
    await pollUntil('the retry counted', async () => (await purgeCount('sent')) === sent + 1 + 2 + 1);
    expect(await purgeCount('abandoned')).toBe(0);
  });

  it('keeps a purge that has not gone out across a restart, and sends it then', async () => {
    const [, failing] = caches as [PurgeReceiver, PurgeReceiver];
    const failed = await purgeCount('failed');
    failing.failNext(500);
    const keys = await newPrice(1008);
    await untilReceived(keys);
    await pollUntil('the failure counted', async () => (await purgeCount('failed')) === failed + 1);
    await service.restart();
    // Well past the retry's 1 s: a restarted process of the distributed mode starts its test clock afresh.
    await service.clock.advance(60_000);
    await untilReceived(keys, 2, [failing]);
    expect(receivedBy(caches[0]!, keys)).toBe(1);
  });

  it('sends each purge once in all, however many processes send them', async () => {
    // A second process's purger on the same store, as a second query API would run one.
    const another = startCachePurger({
      outbox: service.catalog.purges,
      urls: caches.map((cache) => cache.url),
      send: httpPurgeSender(),
      now: () => service.clock.now().getTime(),
      logger: pino({ level: 'silent' }),
      metrics: createPurgeMetrics(new Registry()),
      settleMs: 0,
      pollIntervalMs: 10,
    });
    try {
      const changes = [];
      for (const id of [1011, 1012, 1013, 1014, 1015]) changes.push(await newPrice(id));
      for (const keys of changes) await untilReceived(keys);
      await untilReceived(await change(1016, { stock: 5 }));
      for (const cache of caches) {
        for (const keys of changes) expect(receivedBy(cache, keys)).toBe(1);
      }
    } finally {
      await another.stop();
    }
  });
});
