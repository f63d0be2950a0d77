import { afterEach, expect, it } from 'vitest';
import { startDistributedTestService } from '../support/distributed-service.ts';
import { orderActor, type OrderBody } from '../support/orders.ts';
import { startWebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';
import { tokenOf } from '../support/consistency-tokens.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';

// Two command APIs, two query APIs and two webhook dispatchers on the same stores (the projections
// process stays single, as documented), one of each killed with SIGKILL under load. What it shows: no
// acknowledged order lost, no webhook lost or overtaken within its order, duplicates only of webhooks
// already received (at least once), each the same bytes.

const report = (text: string) => process.stdout.write(`  [two of each] ${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Acknowledged = { id: string; token: string; cancelled: boolean };

/** The order a webhook is about, and its place among that order's events: created first, then changes. */
const orderOf = (webhook: ReceivedWebhook) =>
  webhook.json.type === 'order.created'
    ? (webhook.json.data['id'] as string)
    : (webhook.json.data['orderId'] as string);

it('loses no acknowledged order and no webhook, and keeps each order in order, when one of each is killed', async () => {
  const service = await startDistributedTestService(
    {
      // A few customers place orders under load on two command APIs: the per-user limits are not the subject.
      ...loadTestWriteLimits,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_LEASE_MS: '4000',
    },
    { time: 'real' },
  );
  cleanups.push(() => service.stop());
  const { processes } = service;
  await processes.start('command-api', 'second-command-api');
  await processes.start('query-api', 'second-query-api', {
    CONSOLE_COMMAND_API_URL: processes.urlOf('command-api'),
  });
  await processes.start('webhook-dispatcher', 'second-dispatcher');

  // Receivers that take a while, so that deliveries are in flight when a dispatcher dies.
  const receivers = [
    await startWebhookReceiver(() => ({ status: 200, delayMs: 50 })),
    await startWebhookReceiver(() => ({ status: 200, delayMs: 50 })),
  ];
  for (const receiver of receivers) cleanups.push(() => receiver.stop());
  const admin = await webhookAdmin(service);
  for (const receiver of receivers)
    await admin.register(receiver.url, ['order.created', 'order.status_changed']);

  // Customers placing orders through the router, which sends each request to the next running instance;
  // every other order is cancelled at once, so that orders have two events whose order matters.
  const acknowledged: Acknowledged[] = [];
  let unacknowledged = 0;
  let reads = 0;
  let stopped = false;
  const customers = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const actor = await orderActor(service, ['customer']);
      return { actor, addressId: await actor.addAddress() };
    }),
  );
  const loops = customers.map(async ({ actor, addressId }) => {
    for (let index = 0; !stopped; index++) {
      const placed = await actor
        .post('/orders', { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: addressId })
        .catch(() => null);
      if (placed?.status !== 201) {
        unacknowledged++;
        await placed?.body?.cancel();
        continue;
      }
      const order = (await placed.json()) as OrderBody;
      const entry = { id: order.id, token: placed.headers.get('consistency-token')!, cancelled: false };
      acknowledged.push(entry);
      if (index % 2 === 0) {
        const cancelled = await actor
          .post(`/orders/${order.id}/cancel`, { reason: 'two of each' })
          .catch(() => null);
        if (cancelled?.status === 200) entry.cancelled = true;
        else unacknowledged++;
        await cancelled?.body?.cancel();
      }
      // A read through the query APIs, which share the load too.
      const read = await actor
        .get(`/orders/${order.id}`, { 'Consistency-Token': entry.token })
        .catch(() => null);
      if (read?.status === 200) reads++;
      await read?.body?.cancel();
    }
  });

  await receivers[0]!.waitFor((all) => all.length >= 30, 60_000);
  const before = acknowledged.length;
  await Promise.all([
    processes.stop('command-api', 'SIGKILL'),
    processes.stop('query-api', 'SIGKILL'),
    processes.stop('webhook-dispatcher', 'SIGKILL'),
  ]);
  const receivedAtKill = receivers.map((receiver) => receiver.received.length);
  while (acknowledged.length < before + 80) await sleep(100);
  stopped = true;
  await Promise.all(loops);
  report(
    `${acknowledged.length} orders acknowledged (${acknowledged.filter((o) => o.cancelled).length} cancelled), ` +
      `${reads} read back while loaded, ${unacknowledged} requests not acknowledged; killed (SIGKILL) a command ` +
      `API, a query API and a dispatcher after ${before} orders, when the receivers had ` +
      `${receivedAtKill.join(' and ')} webhooks`,
  );

  // No acknowledged order lost: each reads back from the query API left, at or after its token.
  for (const { id, token } of acknowledged) {
    const read = await admin.get(`/orders/${id}`, { 'Consistency-Token': tokenOf(service, admin, token) });
    expect(read.status, `order ${id}`).toBe(200);
    await read.body?.cancel();
  }

  // Every webhook an acknowledged command owes, by order and type. Counting distinct webhooks is not enough:
  // a command killed before its answer may still have been applied, and its webhook is one more.
  const owed = acknowledged.flatMap((order) => [
    `${order.id} order.created`,
    ...(order.cancelled ? [`${order.id} order.status_changed`] : []),
  ]);
  for (const [index, receiver] of receivers.entries()) {
    await receiver.waitFor((all) => {
      const arrived = new Set(all.map((webhook) => `${orderOf(webhook)} ${webhook.json.type}`));
      return owed.every((webhook) => arrived.has(webhook));
    }, 90_000);
    const first = new Map<string, ReceivedWebhook>();
    const kinds = new Map<string, string[]>();
    let duplicates = 0;
    for (const webhook of receiver.received) {
      const id = webhook.headers['webhook-id'] as string;
      const earlier = first.get(id);
      if (earlier) {
        // At least once: a webhook received again is the same bytes under the same id.
        expect(webhook.body).toBe(earlier.body);
        duplicates++;
        continue;
      }
      first.set(id, webhook);
      const order = orderOf(webhook);
      kinds.set(order, [...(kinds.get(order) ?? []), webhook.json.type]);
    }
    // Nothing lost: each acknowledged order's creation, and its cancellation when acknowledged.
    for (const order of acknowledged) {
      const received = kinds.get(order.id) ?? [];
      expect(received, `subscriber ${index}, order ${order.id}`).toContain('order.created');
      if (order.cancelled) expect(received).toContain('order.status_changed');
    }
    // Nothing overtaken: within each order, the first receipt of each event in the order of the events.
    for (const [order, received] of kinds) {
      expect(received[0], `subscriber ${index}, order ${order}: its first webhook`).toBe('order.created');
    }
    report(
      `subscriber ${index}: every acknowledged order's webhooks received, each order's in order; ` +
        `${duplicates} received more than once (at least once)`,
    );
  }
}, 240_000);
