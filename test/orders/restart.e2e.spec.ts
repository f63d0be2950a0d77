import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkpointNames, orderProjectionName } from '../../projections/projection-names.ts';
import { orderActor, type OrderActor, type OrderBody } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { positionOfToken, tokenOf } from '../support/consistency-tokens.ts';

let service: TestService;
let customer: OrderActor;
let staff: OrderActor;

beforeAll(async () => {
  service = await startTestService();
  customer = await orderActor(service, ['customer']);
  staff = await orderActor(service, ['staff']);
});
afterAll(async () => service.stop());

const storedCheckpoint = () => service.checkpoints.load(checkpointNames[orderProjectionName]);

it('keeps every order across a restart, with its checkpoint stored at the last event', async () => {
  const orders: OrderBody[] = [];
  let lastToken = '';
  for (let index = 0; index < 5; index++) {
    const { order } = await customer.placeOrder();
    const confirmed = await staff.post(`/orders/${order.id}/confirm`);
    lastToken = confirmed.headers.get('consistency-token')!;
    orders.push((await confirmed.json()) as OrderBody);
  }
  // Staff's writes, read by the customer: their position, as a token of the customer's.
  expect(
    (await customer.get('/orders', { 'Consistency-Token': tokenOf(service, customer, lastToken) })).status,
  ).toBe(200);

  await service.restart();
  expect(await storedCheckpoint()).toBe(positionOfToken(lastToken));

  for (const order of orders) {
    const read = await customer.get(`/orders/${order.id}`);
    expect(read.status).toBe(200);
    // As staff's answer gave it, but for what the customer may do to it (staff's actions were staff's).
    expect(await read.json()).toEqual({ ...order, actions: ['cancel'] });
  }
  const shipped = await staff.post(`/orders/${orders[0]!.id}/ship`);
  expect(shipped.status).toBe(200);
  const listing = await customer.get('/orders?status=shipped', {
    'Consistency-Token': tokenOf(service, customer, shipped.headers.get('consistency-token')!),
  });
  expect(((await listing.json()) as { data: OrderBody[] }).data.map((order) => order.id)).toEqual([
    orders[0]!.id,
  ]);
});
