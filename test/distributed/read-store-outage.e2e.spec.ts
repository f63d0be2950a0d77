import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedTestService } from '../support/distributed-service.ts';
import { problemOf } from '../support/http.ts';
import { requiredServer } from '../support/integration-env.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// The four processes reach the read store (MongoDB's wire, FerretDB here) through a forwarder that the test
// cuts, as a MongoDB primary stepping down or a partition would look to them, and then heals.

describe('the distributed mode while its read store is out of reach', () => {
  let service: Awaited<ReturnType<typeof startDistributedTestService>>;
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
  let customer: OrderActor;

  beforeAll(async () => {
    const direct = new URL(requiredServer('MONGODB_URL'));
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const proxied = new URL(direct);
    proxied.port = String(proxy.port);
    // A short server selection, as the stand runs with: the default (5 s) would only make the test slower.
    proxied.searchParams.set('serverSelectionTimeoutMS', '1500');
    service = await startDistributedTestService(
      { ...loadTestWriteLimits, MONGODB_URL: proxied.toString() },
      { time: 'real' },
    );
    customer = await orderActor(service, ['customer']);
  });
  afterAll(async () => {
    await service?.stop();
    await proxy?.close();
  });

  it('answers what needs it 503 with Retry-After, never 500, takes orders meanwhile, and catches up once it is back', async () => {
    const addressId = await customer.addAddress();
    const before = await customer.placeOrder();
    const order = { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: addressId };

    await proxy.cut();
    // Reads come from the read store; a keyed write keeps its answer there.
    for (const answer of [
      await customer.get(`/orders/${before.order.id}`),
      await customer.post('/orders', order, { 'Idempotency-Key': 'during-the-outage' }),
    ]) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect((await problemOf(answer)).detail).toBe(
        'The service cannot reach its read store now. Retry shortly.',
      );
    }
    // An order without a key needs only the log (the caller, prices and address are in memory).
    const placed = await customer.post('/orders', order);
    expect(placed.status).toBe(201);
    const during = {
      id: ((await placed.json()) as { id: string }).id,
      token: placed.headers.get('consistency-token')!,
    };

    await proxy.heal();
    // The projections wrote again by themselves: the order taken during the outage is readable.
    await expect
      .poll(
        async () =>
          (await customer.get(`/orders/${during.id}`, { 'Consistency-Token': during.token })).status,
        {
          timeout: 30_000,
          interval: 250,
        },
      )
      .toBe(200);
    const keyed = await customer.post('/orders', order, { 'Idempotency-Key': 'during-the-outage' });
    expect(keyed.status).toBe(201);
  });
});
