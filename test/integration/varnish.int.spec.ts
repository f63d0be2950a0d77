import { execFile as execFileCallback, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../domain/identity/roles.ts';
import { freePort, pollUntil } from '../support/embedded-child.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

// The embedded default behind a real Varnish running deploy/varnish/default.vcl, started by
// scripts/services.sh. .ci/run installs Debian's varnish and varnish-modules and sets REQUIRE_VARNISH, so
// there it never skips; elsewhere, without varnishd, it says why it skips.
const execFile = promisify(execFileCallback);
const services = fileURLToPath(new URL('../../scripts/services.sh', import.meta.url));
// Debian puts varnishd in /usr/sbin, which a user's PATH may lack.
const varnishd = spawnSync('sh', ['-c', 'PATH="$PATH:/usr/sbin" command -v varnishd'])
  .stdout.toString()
  .trim();
const skipReason = varnishd
  ? null
  : 'varnishd is not installed (Debian: apt-get install varnish varnish-modules)';
if (skipReason) {
  if (process.env['REQUIRE_VARNISH'] === 'true') throw new Error(skipReason);
  process.stderr.write(`[varnish] skipped: ${skipReason}\n`);
}

const stateDir = mkdtempSync(join(tmpdir(), 'varnish-test-'));
// Run as root, varnishd reads its VCL and working directory as the varnish user.
chmodSync(stateDir, 0o755);
// Its own state directory and a free port: the shared servers of scripts/services.sh are not touched.
const servicesEnv = { ...process.env, SERVICES_STATE_DIR: stateDir, VARNISH_PORT: '0' };
const varnishWorkDir = join(stateDir, 'varnish', 'work');

let service: TestService;
let varnish: string;

/** Varnish's own counters (varnishstat), by name. Its threads add theirs in now and then: poll. */
const counter = async (name: string) => {
  const { stdout } = await execFile('varnishstat', ['-n', varnishWorkDir, '-j', '-f', name]);
  return (JSON.parse(stdout) as { counters: Record<string, { value: number }> }).counters[name]!.value;
};

/** X-Varnish names one transaction on a miss or a pass, two (this one and the stored object's) on a hit. */
const fromCache = (response: Response) => response.headers.get('x-varnish')!.trim().split(/\s+/).length === 2;

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(new URL(path, varnish), { headers });

const purgesSent = async () => {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return Number(/^cache_purges_total\{outcome="sent"\} (\d+)$/m.exec(text)?.[1]);
};

describe.skipIf(skipReason !== null)(
  'the embedded default behind Varnish (deploy/varnish/default.vcl)',
  () => {
    beforeAll(async () => {
      // Varnish needs the service's address, the service Varnish's: the service's port is chosen first.
      const port = await freePort();
      const started = await execFile(services, ['varnish-start', `http://127.0.0.1:${port}`], {
        env: servicesEnv,
      });
      varnish = started.stdout.trim();
      service = await startTestService({
        PORT: String(port),
        CACHE_PURGE_URLS: varnish,
        CATALOG_REFRESH_INTERVAL_MS: '100',
      });
      // The demo catalogue's own purge, before the test fills the cache.
      await pollUntil('the seeded catalogue purged from Varnish', async () => (await purgesSent()) === 1);
    });
    afterAll(async () => {
      await service?.stop();
      await execFile(services, ['varnish-stop'], { env: servicesEnv });
      rmSync(stateDir, { recursive: true, force: true });
    });

    it('compiles the reference VCL as shipped (varnishd -C)', async () => {
      const vcl = fileURLToPath(new URL('../../deploy/varnish/default.vcl', import.meta.url));
      const compiled = await execFile(varnishd, ['-C', '-f', vcl, '-n', join(stateDir, 'compile')]);
      expect(compiled.stderr).toContain('xkey');
    });

    it('serves a product detail from its cache within s-maxage, without the Surrogate-Key', async () => {
      const hits = await counter('MAIN.cache_hit');
      const first = await get('/products/1002');
      expect(first.status).toBe(200);
      expect(fromCache(first)).toBe(false);
      const second = await get('/products/1002');
      expect(second.status).toBe(200);
      expect(fromCache(second)).toBe(true);
      expect(await second.text()).toBe(await first.text());
      expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
      expect(second.headers.get('cache-control')).toBe('public, max-age=300, s-maxage=300');
      expect(Number(second.headers.get('age'))).toBeLessThan(300);
      await pollUntil(
        'the hit counted by Varnish',
        async () => (await counter('MAIN.cache_hit')) === hits + 1,
      );
      for (const response of [first, second]) {
        expect(response.headers.get('surrogate-key')).toBeNull();
        expect(response.headers.get('xkey')).toBeNull();
      }
    });

    it('answers a conditional request with 304 from its cache, and revalidates an expired copy with a 304', async () => {
      const { headers } = await get('/products/1003');
      const etag = headers.get('etag')!;
      const notModified = await get('/products/1003', { 'If-None-Match': etag });
      expect(notModified.status).toBe(304);
      expect(fromCache(notModified)).toBe(true);
      expect(notModified.headers.get('etag')).toBe(etag);

      // Expired (kept for revalidation): Varnish asks the service with If-None-Match, which answers 304.
      const revalidations = await counter('MAIN.fetch_304');
      const expire = await fetch(varnish, { method: 'PURGE', headers: { 'xkey-softpurge': 'product-1003' } });
      expect(expire.status).toBe(200);
      const revalidated = await get('/products/1003');
      expect(revalidated.status).toBe(200);
      expect(revalidated.headers.get('etag')).toBe(etag);
      await pollUntil(
        'the 304 fetch counted',
        async () => (await counter('MAIN.fetch_304')) === revalidations + 1,
      );
      expect(fromCache(await get('/products/1003'))).toBe(true);
    });

    describe('never from its cache', () => {
      const behindVarnish = (roles: Role[]) =>
        orderActor({ url: varnish.replace(/\/$/, ''), signIn: (r) => service.signIn(r) }, roles);
      let customer: OrderActor;
      beforeAll(async () => {
        // Every request of this customer goes through Varnish, its token included.
        customer = await behindVarnish(['customer']);
      });

      it('/orders: private answers to requests with a token, and the writes', async () => {
        const { order } = await customer.placeOrder([{ productId: '1001', quantity: 2 }]);
        for (let n = 0; n < 2; n++) {
          const listing = await customer.get('/orders');
          expect(listing.status).toBe(200);
          expect(listing.headers.get('cache-control')).toBe('private, no-cache');
          expect(fromCache(listing)).toBe(false);
          const read = await customer.get(`/orders/${order.id}`);
          expect(read.status).toBe(200);
          expect(fromCache(read)).toBe(false);
        }
        // Another customer's token never meets the first one's answer.
        const other = await behindVarnish(['customer']);
        expect((await (await other.get('/orders')).json()) as { data: unknown[] }).toMatchObject({
          data: [],
        });
      });

      it('/search: private, no-cache', async () => {
        for (let n = 0; n < 3; n++) {
          const response = await get('/search?q=cup');
          expect(response.status).toBe(200);
          expect(response.headers.get('cache-control')).toBe('private, no-cache');
          expect(fromCache(response)).toBe(false);
        }
      });
    });

    it('after catalog:import of one price, serves that product anew at once, and still the unchanged ones from cache', async () => {
      for (const path of ['/products/1004', '/products/1005', '/products', '/categories/coffee-tea']) {
        await get(path);
        expect(fromCache(await get(path)), path).toBe(true);
      }
      const before = (await (await get('/products/1004')).json()) as { price: number };
      const product = (await service.catalog.getProduct(1004))!;
      const file = join(stateDir, 'new-price.json');
      writeFileSync(
        file,
        JSON.stringify([
          {
            id: 1004,
            name: product.name,
            price: before.price + 1,
            updatedAt: new Date().toISOString(),
            category: 'Coffee & Tea',
            stock: product.stock,
          },
        ]),
      );
      const sent = await purgesSent();
      const imported = await runAdmin(['catalog:import', file], { DATA_DIR: service.dataDir });
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toContain('Surrogate-Key: product-1004 products\n');
      await pollUntil('the purge sent to Varnish', async () => (await purgesSent()) === sent + 1);

      const changed = await get('/products/1004');
      expect(fromCache(changed)).toBe(false);
      expect(((await changed.json()) as { price: number }).price).toBe(before.price + 1);
      expect(fromCache(await get('/products'))).toBe(false);
      // What the import did not change stays in the cache.
      expect(fromCache(await get('/products/1005'))).toBe(true);
      expect(fromCache(await get('/categories/coffee-tea'))).toBe(true);
    });

    it('takes PURGE only from the addresses of its ACL, and only with keys', async () => {
      // 127.0.0.2 is this host too, but not in the ACL (127.0.0.1, ::1).
      const fromElsewhere = await new Promise<number>((resolve, reject) => {
        request(varnish, {
          method: 'PURGE',
          headers: { 'xkey-purge': 'products' },
          localAddress: '127.0.0.2',
        })
          .on('response', (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          })
          .on('error', reject)
          .end();
      });
      expect(fromElsewhere).toBe(403);
      expect((await fetch(varnish, { method: 'PURGE' })).status).toBe(400);
    });
  },
);
