import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsServer } from '../support/dns-server.ts';
import { orderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

/**
 * Real subscribers are addressed by host name, not by IP literal. A receiver on loopback is reached as
 * `localhost` through the system resolver (no WEBHOOK_DNS_SERVERS), and as a public-looking name through
 * a DNS server of the test's own (WEBHOOK_DNS_SERVERS), both with private networks allowed as a local demo
 * runs; without that allowance the same names are refused at registration, after resolution.
 */
describe('webhooks addressed by host name', () => {
  let receiver: WebhookReceiver;
  let dns: DnsServer;
  const services: TestService[] = [];
  const service = async (env: Record<string, string>) => {
    const started = await startTestService(env, { time: 'real' });
    services.push(started);
    return started;
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    dns = await startDnsServer(new Map([['hooks.shop.example', ['127.0.0.1']]]));
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await receiver.stop();
    await dns.stop();
  });

  /** Registers `target`, places an order, and waits for its order.created at the receiver. */
  const deliversTo = async (running: TestService, target: string) => {
    const admin = await webhookAdmin(running);
    const registered = await admin.register(target, ['order.created']);
    expect(registered.url).toBe(target);
    const customer = await orderActor(running, ['customer']);
    const { order } = await customer.placeOrder();
    const [delivered] = await receiver.waitFor((all) => all.some((r) => r.json.data['id'] === order.id));
    expect(delivered).toBeDefined();
    // The attempt is logged once the receiver's answer is in: after the receiver saw the request.
    await expect
      .poll(async () => (await admin.attempts(registered.id)).map((a) => [a.outcome, a.statusCode]))
      .toContainEqual(['delivered', 200]);
  };

  it('delivers to http://localhost:PORT/... through the system resolver (WEBHOOK_DNS_SERVERS unset)', async () => {
    const running = await service({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    await deliversTo(running, `http://localhost:${receiver.port}/hooks`);
  });

  it('delivers to a name that only WEBHOOK_DNS_SERVERS knows, resolved by that server', async () => {
    const running = await service({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_DNS_SERVERS: dns.address,
    });
    const before = dns.queries;
    await deliversTo(running, `http://hooks.shop.example:${receiver.port}/hooks`);
    expect(dns.queries).toBeGreaterThan(before);
  });

  it('refuses localhost and a name resolving to loopback when private networks are not allowed', async () => {
    const running = await service({ WEBHOOK_DNS_SERVERS: dns.address });
    const admin = await webhookAdmin(running);
    const refusal = async (url: string) => {
      const response = await admin.post('/webhooks', { url, events: ['order.created'] });
      expect(response.status).toBe(400);
      return ((await response.json()) as { errors: { field: string; message: string }[] }).errors;
    };
    expect(await refusal(`http://hooks.shop.example:${receiver.port}/hooks`)).toEqual([
      {
        field: 'url',
        message:
          'hooks.shop.example resolves to 127.0.0.1, a loopback address: webhooks cannot target internal networks',
      },
    ]);
  });
});
