import { afterAll, beforeAll, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { orderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

it('of 20 racing ship and cancel requests on one confirmed order, exactly one wins; the history stays legal', async () => {
  const customer = await orderActor(service, ['customer']);
  const staff = await orderActor(service, ['staff']);
  const auditor = await orderActor(service, ['auditor']);
  const { order } = await customer.placeOrder();
  expect((await staff.post(`/orders/${order.id}/confirm`)).status).toBe(200);

  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      index % 2 === 0
        ? staff.post(`/orders/${order.id}/ship`)
        : customer.post(`/orders/${order.id}/cancel`, { reason: `racer ${index}` }),
    ),
  );

  const statuses = responses.map((response) => response.status);
  expect(statuses.filter((status) => status === 200)).toHaveLength(1);
  expect(statuses.filter((status) => status === 409)).toHaveLength(19);
  for (const response of responses.filter((r) => r.status === 409)) {
    expect((await problemOf(response)).type).toBe('https://orders.example/problems/invalid-state-transition');
  }

  const events = (await (await auditor.get(`/orders/${order.id}/events`)).json()) as {
    type: string;
    revision: number;
  }[];
  expect(events.map((event) => event.revision)).toEqual([0, 1, 2]);
  expect(events.slice(0, 2).map((event) => event.type)).toEqual(['OrderPlaced', 'OrderConfirmed']);
  expect(['OrderShipped', 'OrderCancelled']).toContain(events[2]!.type);
});
