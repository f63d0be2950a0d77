import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../infrastructure/logging/create-logger.ts';
import { pollUntil } from '../support/embedded-child.ts';
import { orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { erased, filesHolding } from '../support/personal-data.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, testTarget, type TestService } from '../support/test-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';

/**
 * Free text a person writes about an order is the customer's personal data: the cancellation reason is
 * sealed under the customer's key whoever writes it, and reads "[erased]" once the customer is erased,
 * wherever the note does. And text a client sends is never taken for a sealed field, whatever it says: it
 * comes back as it was sent, and no key (another customer's, or none) is ever looked up for it.
 */

type Cancelled = OrderBody & { cancellationReason: string | null; note: string | null };
type HistoryEvent = { type: string; data: Record<string, unknown> };

const embedded = testTarget() === 'embedded';

/** The service, with its log captured where it can be (the embedded default). */
const serviceWithLog = async () => {
  const captured: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      captured.push(chunk.toString());
      done();
    },
  });
  const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '300,300,300' };
  const service = await startTestService(env, {
    time: 'real',
    ...(embedded ? { logger: createLogger({ level: 'info' }, sink) } : {}),
  });
  const errors = () =>
    captured
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string; ownerId?: string })
      .filter((line) => line.level >= 50);
  return { service, errors };
};

describe('free text about an order, and text shaped like a sealed field', () => {
  let service: TestService;
  let errors: () => { level: number; msg: string; ownerId?: string }[];
  let admin: Awaited<ReturnType<typeof webhookAdmin>>;
  let staff: OrderActor;
  let hooks: WebhookReceiver;
  let subscriptionId: string;
  const adminCli = (...args: string[]) => runAdmin(args, { DATA_DIR: service.dataDir });

  beforeAll(async () => {
    ({ service, errors } = await serviceWithLog());
    admin = await webhookAdmin(service);
    staff = await orderActor(service, ['staff']);
    hooks = await startWebhookReceiver();
    subscriptionId = (await admin.register(hooks.url)).id;
  });
  afterAll(async () => {
    await hooks.stop();
    await service.stop();
  });

  it("a cancellation reason, the customer's or staff's, reads [erased] after erasure wherever the note does", async () => {
    const customer = await orderActor(service, ['customer']);
    const phone = `+41 79 ${Math.floor(Math.random() * 9_000_000 + 1_000_000)}`;
    const staffWords = `Kunde${randomUUID().slice(0, 8)} rief an`;
    const own = (await customer.placeOrder()).order;
    const byStaff = (await customer.placeOrder()).order;
    const afterErasure = (await customer.placeOrder()).order;

    const cancelled = await customer.post(`/orders/${own.id}/cancel`, { reason: `call me on ${phone}` });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as Cancelled).cancellationReason).toBe(`call me on ${phone}`);
    const token = (await staff.post(`/orders/${byStaff.id}/cancel`, { reason: staffWords })).headers.get(
      'consistency-token',
    )!;
    const shown = (await (
      await staff.get(`/orders/${byStaff.id}`, { 'Consistency-Token': token })
    ).json()) as Cancelled;
    expect(shown.cancellationReason).toBe(staffWords);
    const history = (await (await customer.get(`/orders/${own.id}/events`)).json()) as HistoryEvent[];
    expect(history.at(-1)).toMatchObject({ type: 'OrderCancelled', data: { reason: `call me on ${phone}` } });
    const delivered = await hooks.waitFor((all) => all.some((hook) => hook.body.includes(phone)));
    const withReason = delivered.find((hook) => hook.body.includes(phone))!;
    expect(withReason.json).toMatchObject({
      type: 'order.status_changed',
      data: { order: { id: own.id, cancellationReason: `call me on ${phone}` } },
    });
    // Sealed from the start: no file of the embedded service holds it, the log included.
    if (embedded) {
      expect(await filesHolding([service.dataDir], phone)).toEqual([]);
      expect(await filesHolding([service.dataDir], staffWords)).toEqual([]);
    }

    expect((await admin.send('DELETE', `/users/${customer.id}`)).status).toBe(204);
    // Another process (the distributed query API) sees the erasure within its key cache period (5 s).
    await pollUntil('the erasure seen by the reads', async () => {
      const order = (await (await staff.get(`/orders/${own.id}`)).json()) as Cancelled;
      return order.cancellationReason === erased;
    });

    // Nothing written about an erased customer's order can be kept: a reason is refused, none is not.
    const refused = await staff.post(`/orders/${afterErasure.id}/cancel`, { reason: 'too late' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/erased/);
    expect((await staff.post(`/orders/${afterErasure.id}/cancel`, {})).status).toBe(200);

    for (const id of [own.id, byStaff.id]) {
      const order = (await (await staff.get(`/orders/${id}`)).json()) as Cancelled;
      expect(order).toMatchObject({ status: 'cancelled', cancellationReason: erased });
      const events = (await (await staff.get(`/orders/${id}/events`)).json()) as HistoryEvent[];
      expect(events.at(-1)).toMatchObject({ type: 'OrderCancelled', data: { reason: erased } });
      const atRevision = (await (await staff.get(`/orders/${id}?revision=1`)).json()) as Cancelled;
      expect(atRevision.cancellationReason).toBe(erased);
    }
    const listed = JSON.stringify(await (await staff.get('/orders?perPage=100')).json());
    const audit = JSON.stringify(await (await admin.get('/audit/events?limit=1000')).json());
    for (const text of [listed, audit]) {
      expect(text).not.toContain(phone);
      expect(text).not.toContain(staffWords);
    }
    const exported = join(service.dataDir, '..', `reasons-${randomUUID()}.ndjson`);
    if (embedded) {
      expect((await adminCli('events:export', '--output', exported)).code).toBe(0);
      const text = readFileSync(exported, 'utf8');
      expect(text).not.toContain(phone);
      expect(text).toContain('"reason":"[erased]"');
    }

    // A webhook redelivered now carries [erased] in place of the reason (the distributed dispatcher sees the
    // erasure once its key cache period is over).
    if (!embedded) await new Promise((resolve) => setTimeout(resolve, 5_500));
    const attempt = (await admin.attempts(subscriptionId)).find(
      (each) => each.eventId === withReason.headers['webhook-id'],
    )!;
    const count = hooks.received.length;
    expect(
      (await admin.post(`/webhooks/${subscriptionId}/deliveries/${attempt.deliveryId}/retry`)).status,
    ).toBe(202);
    const redelivered = (await hooks.waitFor((all) => all.length > count))[count]!;
    expect(redelivered.body).not.toContain(phone);
    expect(redelivered.json).toMatchObject({ data: { order: { id: own.id, cancellationReason: erased } } });
  });

  it('text shaped like a sealed field comes back as it was sent, and no key is looked up for it', async () => {
    const victim = await orderActor(service, ['customer']);
    await victim.placeOrder();
    const attacker = await orderActor(service, ['customer']);
    const bytes = 'A'.repeat(64);
    const shaped = [
      `pd1.${victim.id}.${bytes}`,
      `pd1.${attacker.id}.${bytes}`,
      `pd1.${randomUUID()}.${bytes}`,
      JSON.stringify({ sealed: `pd1.${victim.id}.${bytes}` }),
    ];
    const errorsBefore = errors().length;
    const addressId = await attacker.addAddress({
      street: shaped[0]!,
      city: 'Bern',
      postalCode: '3000',
      country: 'CH',
    });
    const orders: Cancelled[] = [];
    for (const note of shaped) {
      const placed = await attacker.post('/orders', {
        items: [{ productId: '1001', quantity: 1 }],
        shippingAddressId: addressId,
        note,
      });
      expect(placed.status).toBe(201);
      const order = (await placed.json()) as Cancelled;
      expect(order.note).toBe(note);
      orders.push(order);
    }
    const last = orders.at(-1)!;
    const cancel = await attacker.post(`/orders/${last.id}/cancel`, { reason: shaped[0] });
    const token = cancel.headers.get('consistency-token')!;
    expect(((await cancel.json()) as Cancelled).cancellationReason).toBe(shaped[0]);

    const expectedAddress = { street: shaped[0], city: 'Bern', postalCode: '3000', country: 'CH' };
    const me = (await (await attacker.get('/users/me')).json()) as { addresses: Record<string, unknown>[] };
    expect(me.addresses).toEqual([{ id: addressId, ...expectedAddress }]);
    for (const [index, order] of orders.entries()) {
      const read = (await (
        await attacker.get(`/orders/${order.id}`, { 'Consistency-Token': token })
      ).json()) as Cancelled;
      expect(read.note).toBe(shaped[index]);
      expect(read.shippingAddress).toEqual(expectedAddress);
      const events = (await (await attacker.get(`/orders/${order.id}/events`)).json()) as HistoryEvent[];
      expect(events[0]!.data).toMatchObject({ note: shaped[index], shippingAddress: expectedAddress });
    }
    const listed = (await (
      await attacker.get('/orders?perPage=100', { 'Consistency-Token': token })
    ).json()) as {
      data: Cancelled[];
    };
    expect(listed.data.map((order) => order.note).sort()).toEqual([...shaped].sort());
    expect((await (await attacker.get(`/orders/${last.id}`)).json()) as Cancelled).toMatchObject({
      cancellationReason: shaped[0],
    });
    const audit = JSON.stringify(await (await admin.get('/audit/events?limit=1000')).json());
    for (const text of shaped) expect(audit).toContain(JSON.stringify(text).slice(1, -1));
    const hooked = await hooks.waitFor(
      (all) => all.filter((hook) => hook.body.includes(last.id)).length >= 2,
    );
    const created = hooked.find((hook) => hook.body.includes(last.id) && hook.json.type === 'order.created')!;
    expect(created.json.data['note']).toBe(shaped.at(-1));
    if (embedded) expect(errors().slice(errorsBefore)).toEqual([]);

    // The victim's erasure changes nothing of the attacker's text.
    expect((await admin.send('DELETE', `/users/${victim.id}`)).status).toBe(204);
    const after = (await (await attacker.get(`/orders/${orders[0]!.id}`)).json()) as Cancelled;
    expect(after.note).toBe(shaped[0]);
    expect(after.shippingAddress).toEqual(expectedAddress);
    if (embedded) expect(errors().slice(errorsBefore)).toEqual([]);
  });
});
