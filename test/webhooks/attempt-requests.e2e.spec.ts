import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasedAddress } from '../support/personal-data.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

type Kept = { headers: Record<string, string>; body: { data: { shippingAddress: unknown } } };

/**
 * Each attempt keeps the request it sent, over HTTP: a receiver that answers 500,
 * the attempt's headers and body read back from GET /webhooks/{id}/deliveries as the receiver got them,
 * the signature cut short, and the body's personal fields "[erased]" once the customer is erased.
 */
describe('the request each delivery attempt sent', () => {
  let service: TestService;
  let admin: Awaited<ReturnType<typeof webhookAdmin>>;
  let customer: OrderActor;
  let hooks: WebhookReceiver;
  const address = { street: 'Rue des Essais 12', city: 'Lyon', postalCode: '69001', country: 'FR' };

  beforeAll(async () => {
    service = await startTestService(
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '300,300,300' },
      { time: 'real' },
    );
    admin = await webhookAdmin(service);
    customer = await orderActor(service, ['customer']);
    hooks = await startWebhookReceiver(() => ({ status: 500 }));
  });
  afterAll(async () => {
    await hooks?.stop();
    await service?.stop();
  });

  it('keeps the headers and body sent, the signature truncated, and shows [erased] after an erasure', async () => {
    const subscription = await admin.register(hooks.url, ['order.created']);
    const addressId = await customer.addAddress(address);
    expect(
      (
        await customer.post('/orders', {
          items: [{ productId: '1001', quantity: 1 }],
          shippingAddressId: addressId,
        })
      ).status,
    ).toBe(201);
    const [got] = await hooks.waitFor((all) => all.length >= 1);
    // The retries go on, 300 ms apart: the first request received is compared with the first attempt.
    const firstAttempt = async () =>
      ((await admin.attempts(subscription.id)) as { attempt: number; request?: Kept }[]).find(
        ({ attempt }) => attempt === 1,
      );
    await expect.poll(firstAttempt, { timeout: 5_000, interval: 100 }).toBeDefined();
    const attempt = await firstAttempt();
    expect(attempt).toMatchObject({ outcome: 'failed', statusCode: 500 });
    const request = attempt!.request!;

    // The headers as the receiver got them, but for the signature: its version and 8 characters.
    const signature = got!.headers['webhook-signature'] as string;
    expect(signature).toMatch(/^v1,.{20,}$/);
    expect(request.headers['webhook-signature']).toBe(`${signature.slice(0, 11)}…`);
    for (const name of ['webhook-id', 'webhook-timestamp', 'content-type', 'user-agent', 'content-length']) {
      expect(request.headers[name], name).toBe(got!.headers[name]);
    }
    expect(Object.keys(request.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(request.body).toEqual(got!.json);
    expect(request.body.data.shippingAddress).toEqual(address);

    expect((await admin.send('DELETE', `/users/${customer.id}`)).status).toBe(204);
    // At once on the embedded default; in the distributed mode the query API learns of the erasure in
    // another process within its key cache period (5 s).
    const keptAfterErasure = async () => (await firstAttempt())!.request!;
    await expect
      .poll(async () => (await keptAfterErasure()).body.data.shippingAddress, {
        timeout: 15_000,
        interval: 500,
      })
      .toEqual(erasedAddress);
    expect((await keptAfterErasure()).headers).toEqual(request.headers);
  });
});
