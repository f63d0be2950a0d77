import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erased, erasedAddress, filesHolding } from '../support/personal-data.ts';
import { orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

/**
 * Crypto-shredding in the distributed mode: the same story as test/personal-data/erasure.e2e.spec.ts, over
 * the four processes, FerretDB and Kafka; the byte search covers the service's files, FerretDB's data files
 * and Kafka's log segments (scripts/services.sh keeps them under SERVICES_STATE_DIR).
 */
const street = `Quxwaldgasse ${Math.floor(Math.random() * 900 + 100)}`;
const address = { street, city: 'Vorderhinterdorf', postalCode: '98765', country: 'DE' };
const servicesState = process.env['SERVICES_STATE_DIR'] ?? '/tmp/order-service-services';
/** FerretDB's files (its SQLite backend's, or its PostgreSQL cluster's), and Kafka's log segments. */
const mongoDirs = [join(servicesState, 'ferretdb'), join(servicesState, 'postgres')];
const kafkaDir = join(servicesState, 'kafka', 'data');

describe('erasure of a customer’s personal data (distributed mode)', () => {
  let service: TestService;
  let admin: Awaited<ReturnType<typeof webhookAdmin>>;
  let staff: OrderActor;
  let customer: OrderActor;
  let hooks: WebhookReceiver;

  beforeAll(async () => {
    service = await startTestService(
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '300,300,300' },
      { time: 'real' },
    );
    admin = await webhookAdmin(service);
    staff = await orderActor(service, ['staff']);
    customer = await orderActor(service, ['customer']);
    hooks = await startWebhookReceiver();
    await admin.register(hooks.url);
  });
  afterAll(async () => {
    await hooks.stop();
    await service.stop();
  });

  it('shows [erased] on every surface, and no store, data file or log segment holds the street', async () => {
    const addressId = await customer.addAddress(address);
    const body = {
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: addressId,
      note: 'Ring twice',
    };
    const key = { 'Idempotency-Key': randomUUID() };
    const placed = await customer.post('/orders', body, key);
    expect(placed.status).toBe(201);
    const order = (await placed.json()) as OrderBody;
    expect(order.shippingAddress).toEqual(address);
    expect((await customer.post('/orders', body, key)).headers.get('idempotent-replayed')).toBe('true');
    const confirmed = await staff.post(`/orders/${order.id}/confirm`, {});
    expect(confirmed.status).toBe(200);
    await hooks.waitFor((all) => all.filter((hook) => hook.body.includes(street)).length >= 2, 30_000);
    const consistent = { 'Consistency-Token': confirmed.headers.get('consistency-token')! };
    const before = (await (await staff.get(`/orders/${order.id}`, consistent)).json()) as OrderBody;
    expect(before.shippingAddress).toEqual(address);

    // The search reaches what is there: the e-mail in FerretDB's files, the order id in Kafka's segments;
    // the street (sealed from the start) is in neither.
    const mongo = mongoDirs.filter((dir) => existsSync(dir));
    if (mongo.length > 0) expect(await filesHolding(mongo, customer.email)).not.toEqual([]);
    if (existsSync(kafkaDir)) expect(await filesHolding([kafkaDir], order.id)).not.toEqual([]);

    expect((await admin.send('DELETE', `/users/${customer.id}`)).status).toBe(204);
    expect((await admin.send('DELETE', `/users/${customer.id}`)).status).toBe(204);

    // The query API learns of it within its key cache period.
    await expect
      .poll(async () => (await (await staff.get(`/orders/${order.id}`)).json()) as OrderBody, {
        timeout: 15_000,
        interval: 500,
      })
      .toEqual({ ...before, shippingAddress: erasedAddress, note: erased });
    const history = (await (await staff.get(`/orders/${order.id}/events`)).json()) as {
      data: Record<string, unknown>;
    }[];
    expect(history[0]!.data).toMatchObject({ shippingAddress: erasedAddress, note: erased });
    const audit = JSON.stringify(await (await admin.get('/audit/events?limit=1000')).json());
    expect(audit).not.toContain(street);
    expect(audit).toContain(`"streamId":"user-${customer.id}"`);
    expect((await customer.get('/users/me')).status).toBe(401);

    const searched = [service.dataDir, ...mongo, ...(existsSync(kafkaDir) ? [kafkaDir] : [])];
    if (mongo.length === 0 || !existsSync(kafkaDir)) {
      console.warn(`not searched (absent under ${servicesState}): FerretDB's or Kafka's files`);
    }
    expect(await filesHolding(searched, street)).toEqual([]);
  });
});
