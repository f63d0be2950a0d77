import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erased, erasedAddress, filesHolding } from '../support/personal-data.ts';
import { orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookAdmin } from '../support/webhooks.ts';
import { tokenOf } from '../support/consistency-tokens.ts';

/**
 * Crypto-shredding end to end, on the embedded default: a customer with a distinctive street orders (one
 * order with an Idempotency-Key), a webhook subscriber receives the orders, staff move them along; the
 * customer is erased; then every surface shows its address and notes as "[erased]" and everything else as
 * it was, both exports verify, and no file under DATA_DIR (WAL and journal files included) holds the street
 * or the note (sealed from the start) or the customer's e-mail (anonymised).
 */
const street = `Quxwaldstrasse ${Math.floor(Math.random() * 900 + 100)}`;
const noteWord = `Klingelzeichen${randomUUID().slice(0, 8)}`;
const address = { street, city: 'Vorderhinterdorf', postalCode: '98765', country: 'DE' };

/** The files under `dir` whose bytes contain `needle`, named from `dir`. */
const filesUnder = async (dir: string, needle: string) =>
  (await filesHolding([dir], needle)).map((path) => relative(dir, path));

/** The order as it shows once its customer is erased: the same, but for the personal fields. */
const asErased = (order: OrderBody & { note?: unknown }) => ({
  ...order,
  shippingAddress: erasedAddress,
  note: order.note === null ? null : erased,
});

describe('erasure of a customer’s personal data (embedded default)', () => {
  let service: TestService;
  let admin: Awaited<ReturnType<typeof webhookAdmin>>;
  let staff: OrderActor;
  let customer: OrderActor;
  let hooks: WebhookReceiver;
  let subscriptionId: string;
  const adminCli = (...args: string[]) => runAdmin(args, { DATA_DIR: service.dataDir });
  const exportFile = (name: string) => join(service.dataDir, '..', `${name}-${randomUUID()}.ndjson`);

  beforeAll(async () => {
    service = await startTestService(
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '300,300,300' },
      { time: 'real' },
    );
    admin = await webhookAdmin(service);
    staff = await orderActor(service, ['staff']);
    customer = await orderActor(service, ['customer']);
    hooks = await startWebhookReceiver();
    subscriptionId = (await admin.register(hooks.url)).id;
  });
  afterAll(async () => {
    await hooks.stop();
    await service.stop();
  });

  it('shows [erased] on every surface, keeps everything else, and leaves the street in no file', async () => {
    const addressId = await customer.addAddress(address);
    const idempotencyKey = randomUUID();
    const firstBody = {
      items: [{ productId: '1001', quantity: 2 }],
      shippingAddressId: addressId,
      note: `Bitte ${noteWord} beachten`,
    };
    const placed = await customer.post('/orders', firstBody, { 'Idempotency-Key': idempotencyKey });
    expect(placed.status).toBe(201);
    const first = (await placed.json()) as OrderBody & { note: string | null };
    expect(first.shippingAddress).toEqual(address);
    expect(first.note).toContain(noteWord);
    const replayed = await customer.post('/orders', firstBody, { 'Idempotency-Key': idempotencyKey });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.json()).toEqual(first);
    expect(replayed.headers.get('etag')).toBe(placed.headers.get('etag'));
    const secondPlaced = await customer.post('/orders', {
      items: [{ productId: '1002', quantity: 1 }],
      shippingAddressId: addressId,
    });
    const second = (await secondPlaced.json()) as OrderBody & { note: string | null };

    // Staff move the first order along; a payment on the second.
    expect((await staff.post(`/orders/${first.id}/confirm`, {})).status).toBe(200);
    const shipKey = randomUUID();
    const shipping = () => staff.post(`/orders/${first.id}/ship`, {}, { 'Idempotency-Key': shipKey });
    expect((await shipping()).status).toBe(200);
    const paid = await staff.post(`/orders/${second.id}/payments`, {
      amount: { amount: 1, currency: 'EUR' },
      reference: 'erasure-test',
    });
    expect(paid.status).toBe(200);
    const token = paid.headers.get('consistency-token')!;

    // The subscriber got the orders as they were: the street in plaintext (what cannot be recalled).
    const delivered = await hooks.waitFor((all) => all.length >= 5);
    expect(delivered.filter((hook) => hook.body.includes(street))).toHaveLength(4);
    const consistent = { 'Consistency-Token': token };
    const firstBefore = await staff.get(`/orders/${first.id}`, consistent);
    const etagBefore = firstBefore.headers.get('etag')!;
    const before = {
      first: (await firstBefore.json()) as OrderBody,
      second: (await (await staff.get(`/orders/${second.id}`, consistent)).json()) as OrderBody,
      history: (await (await staff.get(`/orders/${first.id}/events`)).json()) as { data: unknown }[],
    };
    expect(before.first.shippingAddress).toEqual(address);
    expect(before.first.status).toBe('shipped');

    // An export is for reading, as GET /audit/events is: it opens the sealed fields, so one made before the
    // erasure holds the street (it is outside DATA_DIR, and what left the service cannot be recalled).
    const exportBefore = exportFile('before');
    expect((await adminCli('events:export', '--output', exportBefore)).code).toBe(0);
    expect(readFileSync(exportBefore, 'utf8')).toContain(street);
    expect(readFileSync(exportBefore, 'utf8')).not.toContain('"pd1.');
    // Even the stored address is sealed: no file holds the street. The customer's e-mail is in the read
    // store, in the clear (sign-in needs it): the search finds what is there.
    expect(await filesUnder(service.dataDir, street)).toEqual([]);
    expect(
      (await filesUnder(service.dataDir, customer.email)).some((file) =>
        file.startsWith('read-store.sqlite'),
      ),
    ).toBe(true);

    // Erase: an admin, over HTTP; the repeat changes nothing.
    const erasure = await admin.send('DELETE', `/users/${customer.id}`);
    expect(erasure.status).toBe(204);
    expect((await admin.send('DELETE', `/users/${customer.id}`)).status).toBe(204);
    expect((await admin.send('DELETE', `/users/${randomUUID()}`)).status).toBe(404);
    expect((await adminCli('user:erase', '--id', customer.id)).stdout).toContain('was erased already');

    // The customer is signed out, anonymised, and cannot sign in again.
    expect((await customer.get('/users/me')).status).toBe(401);
    await expect(service.login(customer)).rejects.toThrow(/401|400/);
    expect(await service.users.findByEmail(customer.email)).toBeNull();
    expect(await service.users.findById(customer.id)).toMatchObject({ name: erased, disabled: true });
    expect(await service.users.listAddresses(customer.id)).toEqual([]);

    // Every surface: [erased] where the personal data was, everything else unchanged.
    const firstAfterResponse = await staff.get(`/orders/${first.id}`);
    const firstAfter = (await firstAfterResponse.json()) as OrderBody;
    expect(firstAfter).toEqual(asErased(before.first));
    // The erasure changed the bytes, not the revision: the ETag changes with them.
    const etagAfter = firstAfterResponse.headers.get('etag')!;
    expect(etagAfter).not.toBe(etagBefore);
    // Staff's kept answer, replayed: the erased bytes with the ETag a read gives them now.
    const shipReplayed = await shipping();
    expect(shipReplayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await shipReplayed.json()).toEqual(firstAfter);
    expect(shipReplayed.headers.get('etag')).toBe(etagAfter);
    expect(await (await staff.get(`/orders/${second.id}`)).json()).toEqual(asErased(before.second));
    const listed = (await (await staff.get('/orders?perPage=100')).json()) as {
      data: OrderBody[];
      customers: Record<string, unknown>;
    };
    expect(listed.data.find((order) => order.id === first.id)).toEqual(asErased(before.first));
    expect(listed.customers[customer.id]).toEqual({ name: erased, email: erased });
    const cursorListed = (await (await staff.get('/orders?cursor=&perPage=100')).json()) as {
      data: OrderBody[];
    };
    expect(cursorListed.data.find((order) => order.id === second.id)).toEqual(asErased(before.second));
    const atRevision = (await (await staff.get(`/orders/${first.id}?revision=0`)).json()) as OrderBody;
    expect(atRevision).toMatchObject({ status: 'pending', shippingAddress: erasedAddress, note: erased });
    const history = (await (await staff.get(`/orders/${first.id}/events`)).json()) as {
      type: string;
      data: Record<string, unknown>;
    }[];
    expect(history).toHaveLength(before.history.length);
    expect(history[0]).toMatchObject({
      type: 'OrderPlaced',
      data: { shippingAddress: erasedAddress, note: erased, customerId: customer.id },
    });
    expect(history.slice(1)).toEqual(before.history.slice(1));
    const audit = (await (await admin.get('/audit/events?limit=1000')).json()) as {
      data: { type: string; streamId: string; data: Record<string, unknown>; actor: unknown }[];
    };
    const auditText = JSON.stringify(audit);
    expect(auditText).not.toContain(street);
    expect(auditText).not.toContain(noteWord);
    expect(audit.data.find((event) => event.type === 'PersonalDataErased')).toMatchObject({
      streamId: `user-${customer.id}`,
      data: { userId: customer.id },
      actor: { userId: admin.id, roles: ['admin'] },
    });
    expect(audit.data.filter((event) => event.type === 'PersonalDataErased')).toHaveLength(1);

    // A webhook redelivered now carries [erased]; its signature still verifies over what is sent.
    const attempts = await admin.attempts(subscriptionId);
    const created = attempts.find((attempt) => attempt.eventType === 'order.created')!;
    const count = hooks.received.length;
    expect(
      (await admin.post(`/webhooks/${subscriptionId}/deliveries/${created.deliveryId}/retry`)).status,
    ).toBe(202);
    const redelivered = (await hooks.waitFor((all) => all.length > count))[count]!;
    expect(redelivered.body).not.toContain(street);
    expect(redelivered.json.data['shippingAddress']).toEqual(erasedAddress);

    // Exports made before and after both verify; the one made after shows [erased] where the street was.
    const exportAfter = exportFile('after');
    expect((await adminCli('events:export', '--output', exportAfter)).code).toBe(0);
    for (const file of [exportBefore, exportAfter]) {
      const verified = await adminCli('events:verify-export', file);
      expect(verified.code, verified.stderr).toBe(0);
    }
    const exportedAfter = readFileSync(exportAfter, 'utf8');
    expect(exportedAfter).not.toContain(street);
    expect(exportedAfter).toContain('"street":"[erased]"');

    // A rebuild from the log, and its verification, agree: still [erased].
    expect((await adminCli('projections:rebuild')).code).toBe(0);
    const verified = await adminCli('projections:verify');
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(await (await staff.get(`/orders/${first.id}`)).json()).toEqual(asErased(before.first));

    // No file under DATA_DIR holds the street or the note any more: the log, the read store, their WALs.
    expect(await filesUnder(service.dataDir, street)).toEqual([]);
    expect(await filesUnder(service.dataDir, noteWord)).toEqual([]);
    // Nor the e-mail, anonymised: secure_delete zeroed it (the WAL was truncated after the erasure).
    expect(await filesUnder(service.dataDir, customer.email)).toEqual([]);

    // If-Match with the ETag of the bytes from before the erasure: 412; with the current one, decided.
    const delivering = (etag: string) => staff.post(`/orders/${first.id}/deliver`, {}, { 'If-Match': etag });
    expect((await delivering(etagBefore)).status).toBe(412);
    expect((await delivering(etagAfter)).status).toBe(200);
  });

  it('erases with the admin CLI while the service runs: the service shows [erased] within its cache period', async () => {
    const other = await orderActor(service, ['customer']);
    const addressId = await other.addAddress(address);
    const placed = await other.post('/orders', {
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: addressId,
    });
    const order = (await placed.json()) as OrderBody;
    const consistent = {
      'Consistency-Token': tokenOf(service, staff, placed.headers.get('consistency-token')!),
    };
    expect(
      ((await (await staff.get(`/orders/${order.id}`, consistent)).json()) as OrderBody).shippingAddress,
    ).toEqual(address);
    const result = await adminCli('user:erase', '--email', other.email);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`erased ${other.id}`);
    await expect
      .poll(
        async () => ((await (await staff.get(`/orders/${order.id}`)).json()) as OrderBody).shippingAddress,
        {
          timeout: 10_000,
          interval: 250,
        },
      )
      .toEqual(erasedAddress);
    const again = await adminCli('user:erase', '--email', other.email);
    expect(again.code).toBe(64);
    expect(again.stderr).toContain('use --id to repeat');
  });

  it('a lost data key reads as [erased], never as a 500', async () => {
    const other = await orderActor(service, ['customer']);
    const { order } = await other.placeOrder();
    // The key vanishes without an erasure (a restore without it, an operator's mistake).
    const db = new DatabaseSync(join(service.dataDir, 'read-store.sqlite'), { timeout: 5000 });
    db.prepare('DELETE FROM personal_data_keys WHERE owner_id = ?').run(other.id);
    db.close();
    await service.restart();
    const staffAgain = await orderActor(service, ['staff']);
    const response = await staffAgain.get(`/orders/${order.id}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as OrderBody).shippingAddress).toEqual(erasedAddress);
    expect((await staffAgain.get(`/orders/${order.id}/events`)).status).toBe(200);
  });
});
