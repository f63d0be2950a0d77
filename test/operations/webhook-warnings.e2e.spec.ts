import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../infrastructure/logging/create-logger.ts';
import { startDnsServer } from '../support/dns-server.ts';
import { pollUntil } from '../support/embedded-child.ts';
import { orderActor } from '../support/orders.ts';
import { startTestService } from '../support/test-service.ts';
import { webhookAdmin } from '../support/webhooks.ts';
import {
  failedAttemptLine,
  logLines,
  orderToFailingReceiver,
  privateNetworksWarning,
  type LogLine,
} from '../support/webhook-log.ts';

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
  const lines = () => logLines(captured.join(''));
  return { service, lines, text: () => captured.join('') };
};

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

    const { admin, subscription, forbidden } = await orderToFailingReceiver(service, stops);

    const failed = await pollUntil('the failed attempt in the log', () =>
      lines().find((line) => line.msg === 'webhook delivery failed'),
    );
    const [attempt] = await admin.attempts(subscription.id);
    expect(failed).toEqual(failedAttemptLine(subscription.id, attempt!));
    for (const secret of Object.values(forbidden())) expect(text()).not.toContain(secret);
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
  it('logs a delivery to a host that no longer resolves with the host name, never the path or the query', async () => {
    const answers = new Map([['gone-hook.shop.test', ['93.184.216.34']]]);
    const dns = await startDnsServer(answers);
    stops.push(() => dns.stop());
    const { service, lines, text } = await serviceWithLog({
      WEBHOOK_DNS_SERVERS: dns.address,
      WEBHOOK_RETRY_SCHEDULE: '60000',
    });
    stops.push(() => service.stop());
    const admin = await webhookAdmin(service);
    // The path and the query of a webhook URL may be a credential of the receiver's.
    const subscription = await admin.register(
      'http://gone-hook.shop.test/hooks/path-credential-7f3a?token=query-credential-91c2',
      ['order.created'],
    );
    answers.delete('gone-hook.shop.test');
    const customer = await orderActor(service, ['customer']);
    await customer.placeOrder();

    const failed: LogLine = await pollUntil('the failed attempt in the log', () =>
      lines().find((line) => line.msg === 'webhook delivery failed'),
    );
    expect(failed).toMatchObject({
      level: 40,
      subscriptionId: subscription.id,
      outcome: 'network-error',
      statusCode: null,
    });
    // The host name is how the operator knows which receiver fails, and why.
    expect(failed['reason']).toMatch(/ENOTFOUND gone-hook\.shop\.test/);
    for (const secret of ['path-credential-7f3a', 'query-credential-91c2', '/hooks/', subscription.secret]) {
      expect(text()).not.toContain(secret);
    }
  });
});
