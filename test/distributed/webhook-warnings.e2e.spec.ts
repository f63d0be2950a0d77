import { afterAll, expect, it } from 'vitest';
import { startDistributedTestService } from '../support/distributed-service.ts';
import { pollUntil } from '../support/embedded-child.ts';
import { orderActor } from '../support/orders.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

// What the distributed mode's processes log about webhooks, as an operator reads each process's log: the
// start-up warning of the processes that reach webhook targets while private networks are allowed, and a
// line at warn for an attempt that did not deliver, never the URL, secret, signature or payload.
// test/operations/webhook-warnings.e2e.spec.ts shows the same of the embedded default.

type LogLine = Record<string, unknown> & { level: number; msg: string };

const privateNetworksWarning =
  'webhooks may reach loopback, private and cloud metadata addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true): for local demos and tests only';

const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

it('warns at start in the command API and the dispatcher, and the dispatcher logs a failed attempt at warn without the secret or the payload', async () => {
  const service = await startDistributedTestService(
    {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '60000',
      // The most any process logs: nothing forbidden may show even there.
      LOG_LEVEL: 'debug',
    },
    { time: 'real' },
  );
  stops.push(() => service.stop());
  const { processes } = service;
  const linesOf = (instance: string) =>
    processes
      .outputOf(instance)
      .log.split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogLine);

  // The two processes that check or reach webhook targets warn once each.
  for (const instance of ['command-api', 'webhook-dispatcher'])
    expect(
      linesOf(instance).filter((line) => line.msg === privateNetworksWarning),
      instance,
    ).toEqual([expect.objectContaining({ level: 40, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' })]);

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

  const failed = await pollUntil('the failed attempt in the dispatcher log', () =>
    linesOf('webhook-dispatcher').find((line) => line.msg === 'webhook delivery failed'),
  );
  const [attempt] = await pollUntil('the failed attempt in the delivery log', async () => {
    const attempts = await admin.attempts(subscription.id);
    return attempts.length > 0 && attempts;
  });
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

  const [delivered] = receiver.received;
  const signature = String(delivered!.headers['webhook-signature']);
  const forbidden = {
    secret: subscription.secret,
    signature,
    payload: delivered!.body,
    street,
    'receiver answer': 'receiver-body-marker',
    url: receiver.url,
  };
  expect(processes.instances().sort()).toEqual(
    ['command-api', 'projections', 'query-api', 'webhook-dispatcher'].sort(),
  );
  for (const instance of processes.instances()) {
    const { log, stderr } = processes.outputOf(instance);
    for (const [what, text] of Object.entries(forbidden)) {
      expect(log, `${what} in the log of the ${instance}`).not.toContain(text);
      expect(stderr, `${what} in the stderr of the ${instance}`).not.toContain(text);
    }
  }
});
