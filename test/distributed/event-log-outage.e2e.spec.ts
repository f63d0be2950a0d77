import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedTestService } from '../support/distributed-service.ts';
import { problemOf } from '../support/http.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { createPostgresLogDatabase } from '../support/postgres-log.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';

// The four processes reach their PostgreSQL log through a forwarder that the test cuts, as a crashed or
// partitioned database server would look to them, and then heals.

describe('the distributed mode while its PostgreSQL event log is out of reach', () => {
  let service: Awaited<ReturnType<typeof startDistributedTestService>>;
  let log: Awaited<ReturnType<typeof createPostgresLogDatabase>>;
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
  let customer: OrderActor;

  beforeAll(async () => {
    log = await createPostgresLogDatabase();
    const direct = new URL(log.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const proxied = new URL(log.url);
    proxied.port = String(proxy.port);
    service = await startDistributedTestService(
      { ...loadTestWriteLimits, EVENT_LOG_URL: proxied.toString(), EVENT_LOG_POLL_INTERVAL_MS: '200' },
      { time: 'real' },
    );
    customer = await orderActor(service, ['customer']);
  });
  afterAll(async () => {
    await service?.stop();
    await proxy?.close();
    await log?.drop();
  });

  it('answers writes 503 with Retry-After, keeps serving reads, and takes writes again once it is back', async () => {
    const before = await customer.placeOrder();
    const addressId = await customer.addAddress();
    const projected = await customer.get(`/orders/${before.order.id}`, {
      'Consistency-Token': before.consistencyToken,
    });
    expect(projected.status).toBe(200);

    await proxy.cut();
    const refused = await customer.post('/orders', {
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: addressId,
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await problemOf(refused)).type).toBe('https://orders.example/problems/service-unavailable');
    // Reads come from the read store, not the log.
    const read = await customer.get(`/orders/${before.order.id}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: string }).id).toBe(before.order.id);

    await proxy.heal();
    await expect
      .poll(
        async () =>
          (
            await customer.post('/orders', {
              items: [{ productId: '1002', quantity: 1 }],
              shippingAddressId: addressId,
            })
          ).status,
        { timeout: 20_000, interval: 250 },
      )
      .toBe(201);
    // The projections followed again by themselves: a write after the outage is readable.
    const after = await customer.placeOrder();
    const readable = await customer.get(`/orders/${after.order.id}`, {
      'Consistency-Token': after.consistencyToken,
    });
    expect(readable.status).toBe(200);
    expect(((await readable.json()) as { status: string }).status).toBe('pending');
  });
});
