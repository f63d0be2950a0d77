import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedTestService } from '../support/distributed-service.ts';
import { describeCommands, type MongoCommand } from '../support/mongo-command-counter.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { tokenOf } from '../support/consistency-tokens.ts';

// Round trips as a budget: how many MongoDB commands each operation of the distributed mode sends, counted
// with the driver's command monitoring in each of its processes. Each costs a network round trip on a real
// cluster, however fast the engine; the budgets hold whatever the engine.

type Service = Awaited<ReturnType<typeof startDistributedTestService>>;
const report = (text: string) => process.stdout.write(`  [round trips] ${text}\n`);

/**
 * What processes send on their own timers, not for the operation measured: the catalogue snapshot's and
 * the kept catalogue responses' revision checks (once a second), the cache purger's look for due purges.
 */
const timerCollections = new Set(['catalog_revision', 'catalog_purges', 'catalog_purge_claims']);
const ofOperation = (commands: readonly MongoCommand[]) =>
  commands.filter((command) => !timerCollections.has(command.collection ?? ''));
const writeCommands = new Set(['insert', 'update', 'delete', 'findAndModify']);
const writesTo = (commands: readonly MongoCommand[], collection: string) =>
  commands.filter((c) => writeCommands.has(c.name) && c.collection === collection);

describe('MongoDB round trips per operation in the distributed mode', () => {
  let service: Service;
  let customer: OrderActor;
  let staff: OrderActor;
  let shippingAddressId: string;
  beforeAll(async () => {
    service = await startDistributedTestService({}, { time: 'manual', countMongoCommands: true });
    customer = await orderActor(service, ['customer']);
    staff = await orderActor(service, ['staff']);
    shippingAddressId = await customer.addAddress();
  });
  afterAll(async () => {
    await service?.stop();
  });

  /** The commands the named processes send while `operation` runs (all processes when none is named). */
  const commandsOf = async (operation: () => Promise<unknown>, ...instances: string[]) => {
    await service.mongoCommands.flush();
    const mark = service.mongoCommands.log.mark();
    await operation();
    await service.mongoCommands.flush();
    return service.mongoCommands.log.since(mark, ...instances);
  };
  const order = {
    items: [
      { productId: '1001', quantity: 1 },
      { productId: '1002', quantity: 2 },
    ],
  };
  /** Places an order; its id and Consistency-Token. */
  const place = async () => {
    const response = await customer.post('/orders', { ...order, shippingAddressId });
    expect(response.status).toBe(201);
    return {
      id: ((await response.json()) as { id: string }).id,
      token: response.headers.get('consistency-token')!,
    };
  };
  /** Reads an order with a token (the customer's or staff's write, as the customer's): once the read model shows it. */
  const readBack = async (id: string, token: string) => {
    const response = await customer.get(`/orders/${id}`, {
      'Consistency-Token': tokenOf(service, customer, token),
    });
    expect(response.status).toBe(200);
  };

  it('POST /orders sends at most 1 command: the stored address, read once a second; the catalogue is in memory', async () => {
    await place(); // loads the catalogue snapshot, once per process
    const commands: MongoCommand[] = [];
    const started = performance.now();
    for (let index = 0; index < 5; index++) commands.push(...(await commandsOf(place, 'command-api')));
    const seconds = (performance.now() - started) / 1000;
    report(
      `5 x POST /orders (2 lines each) in ${seconds.toFixed(2)} s, command API:\n${describeCommands(commands)}`,
    );
    const perOrder = ofOperation(commands);
    expect(perOrder.length, describeCommands(perOrder)).toBeLessThanOrEqual(5);
    expect(perOrder.filter((c) => c.collection === 'catalog_products')).toEqual([]);
    // The customer's addresses are kept for a second: one read per second begun, however many orders.
    const addressReads = perOrder.filter((c) => c.collection === 'users');
    expect(addressReads.length, describeCommands(perOrder)).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(
      perOrder.filter((c) => c.collection !== 'users'),
      describeCommands(perOrder),
    ).toEqual([]);
  });

  it('GET /orders/{id} sends exactly 1 command', async () => {
    const { id, token } = await place();
    await readBack(id, token); // the caller's first request: its account and revocations, then cached
    const commands = ofOperation(
      await commandsOf(async () => {
        const response = await customer.get(`/orders/${id}`);
        expect(response.status).toBe(200);
      }, 'query-api'),
    );
    report(`GET /orders/{id}, query API:\n${describeCommands(commands)}`);
    expect(commands.map((c) => `${c.name} ${c.collection}`)).toEqual(['find order_views']);
  });

  it('the projections write a batch with one write per read model touched and ONE checkpoint write', async () => {
    const placed = await place();
    await readBack(placed.id, placed.token);
    // One event (a confirmation): the order read, its replace, the checkpoint.
    const confirm = await commandsOf(async () => {
      const response = await staff.post(`/orders/${placed.id}/confirm`);
      expect(response.status).toBe(200);
      await readBack(placed.id, response.headers.get('consistency-token')!);
    }, 'projections');
    report(`one OrderConfirmed, projections:\n${describeCommands(confirm)}`);
    expect(writesTo(confirm, 'order_views')).toHaveLength(1);
    expect(writesTo(confirm, 'projection_checkpoints')).toHaveLength(1);
    expect(confirm.filter((c) => writeCommands.has(c.name))).toHaveLength(2);

    // Orders placed at once: however the log batches them, each batch writes the order read model once
    // and the checkpoint once (before: once per runner, three per batch).
    const burst = await commandsOf(async () => {
      const orders = await Promise.all(Array.from({ length: 12 }, () => place()));
      for (const { id, token } of orders) await readBack(id, token);
    }, 'projections');
    const views = writesTo(burst, 'order_views').length;
    const checkpoints = writesTo(burst, 'projection_checkpoints').length;
    report(
      `12 orders placed at once, projections: ${views} order_views writes, ${checkpoints} checkpoint writes`,
    );
    expect(views).toBeGreaterThan(0);
    expect(checkpoints).toBeLessThanOrEqual(views);
    expect(burst.filter((c) => writeCommands.has(c.name)).length).toBe(views + checkpoints);
  });
});
