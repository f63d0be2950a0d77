// The per-user write limits in the distributed mode, with two command APIs on the same stores: each
// process counts its own (docs/security.md, "Left to the deployment"), as every rate limit of the service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { orderActor } from '../support/orders.ts';
import { startDistributedTestService } from '../support/distributed-service.ts';

type Service = Awaited<ReturnType<typeof startDistributedTestService>>;

describe('per-user write limits with two command APIs', () => {
  let service: Service;
  let secondCommandApi: string;
  beforeAll(async () => {
    service = await startDistributedTestService(
      { USER_WRITE_LIMIT_ORDERS: '2', STAFF_WRITE_LIMIT_ORDERS: '3', WRITE_LIMIT_WINDOW_SECONDS: '60' },
      { time: 'real' },
    );
    secondCommandApi = (await service.processes.start('command-api', 'second-command-api')).url;
  });
  afterAll(() => service?.stop());

  it('each command API refuses a customer past the limit with 429, Retry-After and nothing placed; another customer and staff go on', async () => {
    const customer = await orderActor(service, ['customer']);
    const other = await orderActor(service, ['customer']);
    const staff = await orderActor(service, ['staff']);
    const [customerAddress, otherAddress, staffAddress] = [
      await customer.addAddress(),
      await other.addAddress(),
      await staff.addAddress(),
    ];
    const placeAt = (origin: string, actor: typeof customer, shippingAddressId: string) =>
      fetch(`${origin}/orders`, {
        method: 'POST',
        headers: { ...actor.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ items: [{ productId: '1001', quantity: 1 }], shippingAddressId }),
      });
    const commandApis = [service.processes.urlOf('command-api'), secondCommandApi];

    for (const origin of commandApis) {
      for (let placed = 1; placed <= 2; placed++) {
        expect((await placeAt(origin, customer, customerAddress)).status).toBe(201);
      }
      const refused = await placeAt(origin, customer, customerAddress);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await problemOf(refused)).detail).toMatch(/orders placed/);
      expect((await placeAt(origin, other, otherAddress)).status).toBe(201);
    }
    // Four orders in all (two per process), never the refused ones.
    await expect
      .poll(
        async () =>
          ((await (await customer.get('/orders?perPage=100')).json()) as { data: unknown[] }).data.length,
        { timeout: 20_000, interval: 250 },
      )
      .toBe(4);
    for (let placed = 1; placed <= 3; placed++) {
      expect((await placeAt(commandApis[0]!, staff, staffAddress)).status).toBe(201);
    }
    expect((await placeAt(commandApis[0]!, staff, staffAddress)).status).toBe(429);
  });
});
