import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderActor } from '../support/orders.ts';
import { filesHolding } from '../support/personal-data.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, testTarget, type TestService } from '../support/test-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

/**
 * A webhook URL beyond its origin may be a credential (`…/services/T0/B0/SECRET?api_key=…`): the log holds
 * it sealed like the signing secret; admins read it whole, auditors (who get 403 on /webhooks) and exports
 * its origin only.
 */

type AuditEvent = { type: string; streamId: string; data: Record<string, unknown> };

describe('webhook URLs that carry a credential', () => {
  let service: TestService;
  let hooks: WebhookReceiver;
  const embedded = testTarget() === 'embedded';

  beforeAll(async () => {
    service = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, { time: 'real' });
    hooks = await startWebhookReceiver();
  });
  afterAll(async () => {
    await hooks.stop();
    await service.stop();
  });

  it('are whole for admins, their origin for auditors and exports, and in no file in the clear', async () => {
    const admin = await webhookAdmin(service);
    const auditor = await service.signIn(['auditor']);
    const pathSecret = `SECRET${randomUUID().replaceAll('-', '')}`;
    const querySecret = `KEY${randomUUID().replaceAll('-', '')}`;
    const changedSecret = `OTHER${randomUUID().replaceAll('-', '')}`;
    const url = `${hooks.url}/services/T0/B0/${pathSecret}?api_key=${querySecret}`;
    const changedUrl = `${hooks.url}/services/T0/B0/${changedSecret}`;
    const origin = new URL(hooks.url).origin;

    const registered = await admin.register(url);
    expect(registered.url).toBe(url);
    const changed = await admin.send('PATCH', `/webhooks/${registered.id}`, { url: changedUrl });
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as { url: string }).url).toBe(changedUrl);
    // The same URL again changes nothing: the decider compares it in the clear.
    const same = await admin.send('PATCH', `/webhooks/${registered.id}`, { url: changedUrl });
    expect(same.status).toBe(200);
    expect(same.headers.get('consistency-token')).toBeNull();
    const token = changed.headers.get('consistency-token')!;
    const listed = await admin.get('/webhooks', { 'Consistency-Token': token });
    expect((await listed.json()) as { id: string; url: string }[]).toContainEqual(
      expect.objectContaining({ id: registered.id, url: changedUrl }),
    );

    const eventsOf = async (headers: Record<string, string>) => {
      const response = await fetch(`${service.url}/audit/events?limit=1000`, { headers });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: AuditEvent[] };
      return body.data.filter((event) => event.streamId === `webhook-subscription-${registered.id}`);
    };
    const asAuditor = await eventsOf(auditor.auth);
    expect(asAuditor.map((event) => event.type)).toEqual([
      'WebhookSubscriptionRegistered',
      'WebhookSubscriptionChanged',
    ]);
    expect(asAuditor[0]!.data['url']).toBe(origin);
    expect(asAuditor[1]!.data['changes']).toEqual({ url: origin });
    const auditorText = JSON.stringify(asAuditor);
    for (const secret of [pathSecret, querySecret, changedSecret]) expect(auditorText).not.toContain(secret);
    expect((await fetch(`${service.url}/webhooks`, { headers: auditor.auth })).status).toBe(403);

    const asAdmin = await eventsOf(admin.auth);
    expect(asAdmin[0]!.data['url']).toBe(url);
    expect(asAdmin[1]!.data['changes']).toEqual({ url: changedUrl });

    // Still delivered, to the whole URL (the dispatcher opens it).
    const customer = await orderActor(service, ['customer']);
    const { order } = await customer.placeOrder();
    await hooks.waitFor((all) => all.some((hook) => hook.body.includes(order.id)));

    if (embedded) {
      const exported = join(service.dataDir, '..', `urls-${randomUUID()}.ndjson`);
      expect(
        (await runAdmin(['events:export', '--output', exported], { DATA_DIR: service.dataDir })).code,
      ).toBe(0);
      const text = readFileSync(exported, 'utf8');
      expect(text).toContain(`"url":"${origin}"`);
      for (const secret of [pathSecret, querySecret, changedSecret]) {
        expect(text).not.toContain(secret);
        expect(await filesHolding([service.dataDir], secret)).toEqual([]);
      }
    }
  });
});
