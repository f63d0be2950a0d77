import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let staff: OrderActor;
let auditor: OrderActor;
const orderIds: string[] = [];
let lastToken = '';

beforeAll(async () => {
  service = await startTestService();
  const customer = await orderActor(service, ['customer']);
  staff = await orderActor(service, ['staff']);
  auditor = await orderActor(service, ['auditor']);
  for (let index = 0; index < 4; index++) {
    const { order } = await customer.placeOrder();
    orderIds.push(order.id);
    const confirmed = await staff.post(`/orders/${order.id}/confirm`);
    lastToken = confirmed.headers.get('consistency-token')!;
  }
  // The read model has everything before the CLI looks at it.
  await staff.get('/orders', { 'Consistency-Token': lastToken });
});
afterAll(async () => service.stop());

const admin = (...args: string[]) => runAdmin(args, service.adminEnv);
const logEvents = async () =>
  ((await (await auditor.get('/audit/events?limit=1000')).json()) as { data: { position: string }[] }).data;

describe('events:export and events:verify-export', () => {
  const file = () => join(service.dataDir, 'export.ndjson');

  it('exports the whole log as a hash-chained NDJSON file that verifies', async () => {
    const exported = await admin('events:export', '--output', file());
    expect(exported.code).toBe(0);
    // It holds the whole log, addresses included: the owner's only, whatever the umask.
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    const log = await logEvents();
    const lines = readFileSync(file(), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(log.length + 2);
    expect(JSON.parse(lines[0]!).record).toMatchObject({ kind: 'header', after: null });
    expect(JSON.parse(lines.at(-1)!).record).toEqual({
      kind: 'trailer',
      events: log.length,
      lastPosition: log.at(-1)!.position,
    });

    const verified = await admin('events:verify-export', file());
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain(`OK: ${log.length} events in 4 streams`);
    const finalHash = /final hash ([0-9a-f]{64})/.exec(exported.stderr)![1]!;
    expect(verified.stdout).toContain(finalHash);
  });

  it('fails verification, naming the line, when a line is altered, dropped, or the end is cut off', async () => {
    const lines = readFileSync(file(), 'utf8').trimEnd().split('\n');
    const cases = {
      altered: lines.map((line, index) =>
        index === 3 ? line.replace('"quantity":2', '"quantity":20') : line,
      ),
      dropped: lines.filter((_, index) => index !== 2),
      'cut off': lines.slice(0, -1),
    };
    expect(cases.altered[3]).not.toBe(lines[3]);
    for (const [name, tampered] of Object.entries(cases)) {
      const path = join(service.dataDir, `${name.replace(' ', '-')}.ndjson`);
      writeFileSync(path, `${tampered.join('\n')}\n`);
      const result = await admin('events:verify-export', path);
      expect(result.code, name).toBe(65);
      expect(result.stderr, name).toMatch(/fails verification: (line \d+|.*cut off)/);
    }
  });

  it('exports only what follows --after, and that export verifies on its own', async () => {
    const log = await logEvents();
    const partial = join(service.dataDir, 'partial.ndjson');
    expect((await admin('events:export', '--after', log[4]!.position, '--output', partial)).code).toBe(0);
    const verified = await admin('events:verify-export', partial);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain(`OK: ${log.length - 5} events`);
  });
});

describe('projections:verify and projections:rebuild', () => {
  it('finds the live read model equal to a replay of the log', async () => {
    const result = await admin('projections:verify');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('OK: the 4 orders of the read model match a replay of the log');
  });

  it('reports an order tampered with in the read model, and a rebuild repairs it while the service runs', async () => {
    const tampered = orderIds[1]!;
    const db = openDatabase({ path: join(service.dataDir, 'read-store.sqlite') });
    db.prepare(
      `UPDATE order_views SET status = 'delivered', document = json_set(document, '$.status', 'delivered') WHERE id = ?`,
    ).run(tampered);
    db.prepare('DELETE FROM order_views WHERE id = ?').run(orderIds[2]!);
    db.close();
    expect(((await (await staff.get(`/orders/${tampered}`)).json()) as { status: string }).status).toBe(
      'delivered',
    );

    const verify = await admin('projections:verify');
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain(`order ${tampered}: differs from the log (status)`);
    expect(verify.stdout).toContain(`order ${orderIds[2]}: missing from the live read model`);

    const rebuild = await admin('projections:rebuild');
    expect(rebuild.code).toBe(0);
    expect(rebuild.stdout).toMatch(/rebuilt the order read model from \d+ events/);
    expect(((await (await staff.get(`/orders/${tampered}`)).json()) as { status: string }).status).toBe(
      'confirmed',
    );
    expect((await staff.get(`/orders/${orderIds[2]}`)).status).toBe(200);
    expect((await admin('projections:verify')).code).toBe(0);

    // The service's own projection carries on after the swap.
    const shipped = await staff.post(`/orders/${tampered}/ship`);
    const read = await staff.get(`/orders/${tampered}`, {
      'Consistency-Token': shipped.headers.get('consistency-token')!,
    });
    expect(((await read.json()) as { status: string }).status).toBe('shipped');
  });

  it('says so when there is no event log in DATA_DIR', async () => {
    const result = await runAdmin(['events:export'], { DATA_DIR: join(service.dataDir, 'nowhere') });
    expect(result.code).toBe(65);
    expect(result.stderr).toContain('no event log at');
  });
});
