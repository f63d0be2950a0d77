import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../infrastructure/logging/create-logger.ts';
import { startDnsServer } from '../support/dns-server.ts';
import { pollUntil } from '../support/embedded-child.ts';
import { orderActor } from '../support/orders.ts';
import { startTestService } from '../support/test-service.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

type LogLine = Record<string, unknown> & { level: number; msg: string };

/** The embedded default with its log captured, as the operator reads it. */
const serviceWithLog = async (env: Record<string, string>) => {
  const captured: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      captured.push(chunk.toString());
      done();
    },
  });
  const service = await startTestService(env, {
    time: 'real',
    logger: createLogger({ level: 'info' }, sink),
  });
  const lines = () =>
    captured
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogLine);
  return { service, lines, text: () => captured.join('') };
};

const privateNetworksWarning =
  'webhooks may reach loopback, private and cloud metadata addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true): for local demos and tests only';

describe('what the log says about webhooks', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('warns at start while private targets are allowed, and logs each failed attempt at warn without the secret or the payload', async () => {
    const { service, lines, text } = await serviceWithLog({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '60000',
    });
    stops.push(() => service.stop());
    expect(lines().filter((line) => line.msg === privateNetworksWarning)).toEqual([
      expect.objectContaining({ level: 40, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }),
    ]);

    const receiver = await startWebhookReceiver(() => ({ status: 500, body: 'receiver-body-marker' }));
    stops.push(() => receiver.stop());
    const admin = await webhookAdmin(service);
    const subscription = await admin.register(receiver.url, ['order.created']);
    const customer = await orderActor(service, ['customer']);
    const street = 'Payload Marker Street 12';
    const shippingAddressId = await customer.addAddress({
      street,
      city: 'Lyon',
      postalCode: '69001',
      country: 'FR',
    });
    const placed = await customer.post('/orders', {
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId,
    });
    expect(placed.status).toBe(201);

    const failed = await pollUntil('the failed attempt in the log', () =>
      lines().find((line) => line.msg === 'webhook delivery failed'),
    );
    const [attempt] = await admin.attempts(subscription.id);
    expect(failed).toEqual({
      level: 40,
      time: expect.any(Number),
      pid: expect.any(Number),
      hostname: expect.any(String),
      msg: 'webhook delivery failed',
      component: 'webhook-dispatcher',
      subscriptionId: subscription.id,
      deliveryId: attempt!.deliveryId,
      eventId: attempt!.eventId,
      eventType: 'order.created',
      attempt: 1,
      outcome: 'failed',
      statusCode: 500,
      reason: 'the receiver answered 500',
      next: expect.stringMatching(/^retry at \d{4}-\d\d-\d\dT/),
    });
    const signature = String(receiver.received[0]!.headers['webhook-signature']);
    for (const secret of [subscription.secret, signature, street, 'receiver-body-marker', receiver.url])
      expect(text()).not.toContain(secret);
  });

  it('says nothing of private networks by default, and logs a refused delivery at warn with the reason', async () => {
    // The host resolves to a public address at registration and to loopback when the delivery connects.
    const answers = new Map([['hooks.shop.test', ['93.184.216.34']]]);
    const dns = await startDnsServer(answers);
    stops.push(() => dns.stop());
    const { service, lines } = await serviceWithLog({
      WEBHOOK_DNS_SERVERS: dns.address,
      WEBHOOK_RETRY_SCHEDULE: '60000',
    });
    stops.push(() => service.stop());
    expect(lines().some((line) => line.msg === privateNetworksWarning)).toBe(false);

    const admin = await webhookAdmin(service);
    const subscription = await admin.register('http://hooks.shop.test/orders', ['order.created']);
    answers.set('hooks.shop.test', ['127.0.0.1']);
    const customer = await orderActor(service, ['customer']);
    await customer.placeOrder();

    const refused: LogLine = await pollUntil('the refused attempt in the log', () =>
      lines().find((line) => line.msg === 'webhook delivery refused'),
    );
    expect(refused).toMatchObject({
      level: 40,
      subscriptionId: subscription.id,
      eventType: 'order.created',
      attempt: 1,
      outcome: 'refused',
      statusCode: null,
      next: expect.stringMatching(/^retry at /),
    });
    expect(refused['reason']).toMatch(/loopback/);
    expect(JSON.stringify(refused)).not.toContain(subscription.secret);
  });
});
