import { noShipmentDetails } from '../support/order-fixtures.ts';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type {
  OrderListQuery,
  OrderReadModel,
  TotalBounds,
} from '../../projections/orders/order-read-model.ts';
import { placeCommand, recordedHistory } from '../support/order-history.ts';

/** What every adapter of the OrderReadModel port promises. Fresh customers per test: shared servers are fine. */
export const orderReadModelContract = (
  adapterName: string,
  createReadModel: () => Promise<OrderReadModel>,
) => {
  describe(`OrderReadModel contract: ${adapterName}`, () => {
    let model: OrderReadModel;
    beforeAll(async () => {
      model = await createReadModel();
    });

    it('folds an order history into the view the decider would give, with its revision and position', async () => {
      const { orderId, events } = recordedHistory((id) => [
        placeCommand(id),
        { type: 'ConfirmOrder', data: { orderId: id, confirmedAt: '2026-11-21T10:05:00.000Z' } },
      ]);
      await model.applyEvents(events);
      expect(await model.getOrder(orderId)).toMatchObject({
        id: orderId,
        status: 'confirmed',
        total: { amountMinor: 1998, currency: 'EUR' },
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:05:00.000Z',
        revision: 1,
        position: events[1]!.position.toString(),
      });
      expect(await model.getOrder(randomUUID())).toBeNull();
    });

    it('says an order is unchanged only while its stored view is at the revision the reader holds', async () => {
      const { orderId, events } = recordedHistory((id) => [
        placeCommand(id),
        { type: 'ConfirmOrder', data: { orderId: id, confirmedAt: '2026-11-21T10:05:00.000Z' } },
      ]);
      await model.applyEvents(events.slice(0, 1));
      const placed = await model.getOrder(orderId);
      // At the revision held: unchanged, or (an adapter may) the same view again.
      expect(['unchanged', placed]).toContainEqual(await model.getOrderIfChanged(orderId, 0));
      // Behind or ahead of what is stored: the stored view.
      expect(await model.getOrderIfChanged(orderId, 5)).toEqual(placed);
      await model.applyEvents(events.slice(1));
      expect(await model.getOrderIfChanged(orderId, 0)).toMatchObject({ status: 'confirmed', revision: 1 });
      expect(await model.getOrderIfChanged(randomUUID(), 0)).toBeNull();
    });

    it('hands out views a reader may change without changing what is stored', async () => {
      const { orderId, events } = recordedHistory((id) => [placeCommand(id)]);
      await model.applyEvents(events);
      const stored = structuredClone(await model.getOrder(orderId));
      const view = (await model.getOrder(orderId))!;
      try {
        Object.assign(view, { status: 'cancelled' });
        view.items.length = 0;
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError); // a frozen view refuses, which is as good
      }
      expect(await model.getOrder(orderId)).toEqual(stored);
    });

    it('is idempotent: a replayed event or batch changes nothing', async () => {
      const { orderId, events } = recordedHistory((id) => [
        placeCommand(id),
        { type: 'ConfirmOrder', data: { orderId: id, confirmedAt: '2026-11-21T10:05:00.000Z' } },
        {
          type: 'ShipOrder',
          data: { orderId: id, shippedAt: '2026-11-21T10:06:00.000Z', shipment: noShipmentDetails },
        },
      ]);
      await model.applyEvents(events);
      const once = await model.getOrder(orderId);
      // All of it again; the start of it (a view folded from that would be behind the stored one); some of it.
      for (const replayed of [events, events.slice(0, 2), [events[0]!, events[2]!]]) {
        await model.applyEvents(replayed);
        expect(await model.getOrder(orderId)).toEqual(once);
      }
    });

    it("applies what follows a replay of an order's start on top of the view as far as it had got", async () => {
      const { orderId, events } = recordedHistory((id) => [
        placeCommand(id),
        { type: 'ConfirmOrder', data: { orderId: id, confirmedAt: '2026-11-21T10:05:00.000Z' } },
        {
          type: 'ShipOrder',
          data: { orderId: id, shippedAt: '2026-11-21T10:06:00.000Z', shipment: noShipmentDetails },
        },
        { type: 'DeliverOrder', data: { orderId: id, deliveredAt: '2026-11-21T10:07:00.000Z' } },
      ]);
      await model.applyEvents(events.slice(0, 3));
      expect(await model.getOrder(orderId)).toMatchObject({ status: 'shipped', revision: 2 });
      await model.applyEvents(events.slice(0, 2));
      await model.applyEvents([events[3]!]);
      expect(await model.getOrder(orderId)).toMatchObject({ status: 'delivered', revision: 3 });
    });

    it('applies a batch of many orders, new and known, interleaved, as it would one event at a time', async () => {
      const known = Array.from({ length: 12 }, () =>
        recordedHistory((id) => [
          placeCommand(id),
          { type: 'ConfirmOrder', data: { orderId: id, confirmedAt: '2026-11-21T10:05:00.000Z' } },
        ]),
      );
      await model.applyEvents(known.map(({ events }) => events[0]!));
      const fresh = Array.from({ length: 3 }, () => recordedHistory((id) => [placeCommand(id)]));
      const batch = [
        ...known.slice(0, 6).map(({ events }) => events[1]!),
        ...fresh.map(({ events }) => events[0]!),
        // A replay of what is there already, among them.
        known[7]!.events[0]!,
        ...known.slice(6).map(({ events }) => events[1]!),
      ];
      await model.applyEvents(batch);
      for (const { orderId, events } of known) {
        expect(await model.getOrder(orderId)).toMatchObject({
          status: 'confirmed',
          revision: 1,
          position: events[1]!.position.toString(),
        });
      }
      for (const { orderId } of fresh) {
        expect(await model.getOrder(orderId)).toMatchObject({ status: 'pending', revision: 0 });
      }
      const once = await Promise.all(known.map(({ orderId }) => model.getOrder(orderId)));
      await model.applyEvents(batch);
      expect(await Promise.all(known.map(({ orderId }) => model.getOrder(orderId)))).toEqual(once);
    });

    it('refuses to skip a gap in a stream', async () => {
      const { events } = recordedHistory((id) => [
        placeCommand(id),
        { type: 'ConfirmOrder', data: { orderId: id, confirmedAt: '2026-11-21T10:05:00.000Z' } },
      ]);
      await expect(model.applyEvents([events[1]!])).rejects.toThrow(/gap/);
    });

    it('ignores events of other streams', async () => {
      const { events } = recordedHistory((id) => [placeCommand(id)]);
      await model.applyEvents([{ ...events[0]!, streamId: `webhook-${randomUUID()}` }]);
    });

    describe('listing', () => {
      const customer = `customer-${randomUUID()}`;
      const other = `customer-${randomUUID()}`;
      const ids: string[] = [];
      beforeAll(async () => {
        // Seven orders of one customer a minute apart, the fourth cancelled; one of another customer.
        for (let minute = 0; minute < 7; minute++) {
          const { orderId, events } = recordedHistory((id) => [
            placeCommand(id, { customerId: customer, placedAt: `2026-11-21T11:0${minute}:00.000Z` }),
            ...(minute === 3
              ? [
                  {
                    type: 'CancelOrder' as const,
                    data: { orderId: id, reason: null, cancelledAt: '2026-11-21T12:00:00.000Z' },
                  },
                ]
              : []),
          ]);
          ids.push(orderId);
          await model.applyEvents(events);
        }
        await model.applyEvents(recordedHistory((id) => [placeCommand(id, { customerId: other })]).events);
      });
      const newestFirst = () => [...ids].reverse();
      type Filters = Omit<OrderListQuery, 'kind' | 'limit' | 'offset' | 'after' | 'before'>;
      /** The ids the filters list from the start, newest first, in one kind of listing. */
      const listed = async (filters: Filters, kind: 'page' | 'cursor' = 'page') =>
        (
          await model.listOrders(
            kind === 'page' ? { ...filters, kind, offset: 0, limit: 10 } : { ...filters, kind, limit: 10 },
          )
        ).orders.map((order) => order.id);
      /** The same in both kinds: a page and a cursor's listing must agree. */
      const listedInBoth = async (filters: Filters) => ({
        page: await listed(filters, 'page'),
        cursor: await listed(filters, 'cursor'),
      });

      it('pages newest first, with the total, filtered by customer and status', async () => {
        const first = await model.listOrders({ kind: 'page', customerId: customer, offset: 0, limit: 3 });
        expect(first.orders.map((o) => o.id)).toEqual(newestFirst().slice(0, 3));
        expect(first).toMatchObject({ total: 7, hasMore: true });
        const last = await model.listOrders({ kind: 'page', customerId: customer, offset: 6, limit: 3 });
        expect(last.orders.map((o) => o.id)).toEqual(newestFirst().slice(6));
        expect(last.hasMore).toBe(false);
        const cancelled = await model.listOrders({
          kind: 'page',
          customerId: customer,
          status: 'cancelled',
          offset: 0,
          limit: 10,
        });
        expect(cancelled.orders.map((o) => o.id)).toEqual([ids[3]]);
      });

      it('finds an order by its short id (its last 8 hex digits), in both kinds of listing', async () => {
        const wanted = ids[2]!;
        const shortId = wanted.slice(-8);
        expect(await listedInBoth({ idEndsWith: shortId })).toEqual({ page: [wanted], cursor: [wanted] });
        expect(await listed({ customerId: other, idEndsWith: shortId })).toEqual([]);
        expect(await listed({ idEndsWith: '00000000' })).toEqual([]);
      });

      it('finds the orders whose id begins so, in both kinds of listing, with the other filters', async () => {
        const wanted = ids[4]!;
        expect(await listedInBoth({ idStartsWith: wanted.slice(0, -1) })).toEqual({
          page: [wanted],
          cursor: [wanted],
        });
        // The whole id is a start of itself; a start and an end together; a start no order has, none.
        expect(await listed({ idStartsWith: wanted })).toEqual([wanted]);
        expect(await listed({ idStartsWith: wanted.slice(0, 9), idEndsWith: wanted.slice(-8) })).toEqual([
          wanted,
        ]);
        expect(await listed({ idStartsWith: 'ffff-' })).toEqual([]);
        expect(await listed({ idStartsWith: wanted.slice(0, -1), customerId: other })).toEqual([]);
      });

      it('keeps to the orders placed in a span of time, in both kinds of listing', async () => {
        // The seven were placed at 11:00 to 11:06; from 11:02, before 11:05: the third to the fifth.
        const span = { placedFrom: '2026-11-21T11:02:00.000Z', placedBefore: '2026-11-21T11:05:00.000Z' };
        const page = await model.listOrders({
          kind: 'page',
          customerId: customer,
          ...span,
          offset: 0,
          limit: 10,
        });
        expect(page.orders.map((o) => o.id)).toEqual(ids.slice(2, 5).reverse());
        expect(page.total).toBe(3);
        const cursor = await model.listOrders({ kind: 'cursor', customerId: customer, ...span, limit: 2 });
        expect(cursor.orders.map((o) => o.id)).toEqual(ids.slice(3, 5).reverse());
        expect(cursor.hasMore).toBe(true);
      });

      it('keeps to the orders in a currency whose total is within bounds, inclusive, in both kinds of listing', async () => {
        // 9.99, 49.95 and 99.90 EUR, a minute apart, and 4995 JPY (the same minor units as 49.95 EUR).
        const buyer = `customer-${randomUUID()}`;
        const placed: string[] = [];
        for (const [minute, quantity, currency] of [
          [0, 1, 'EUR'],
          [1, 5, 'EUR'],
          [2, 10, 'EUR'],
          [3, 5, 'JPY'],
        ] as const) {
          const { orderId, events } = recordedHistory((id) => [
            placeCommand(id, {
              customerId: buyer,
              placedAt: `2026-11-22T09:0${minute}:00.000Z`,
              quantity,
              currency,
            }),
          ]);
          placed.push(orderId);
          await model.applyEvents(events);
        }
        const within = (totalWithin: TotalBounds, kind: 'page' | 'cursor' = 'page') =>
          listed({ customerId: buyer, totalWithin }, kind);
        expect(await within({ currency: 'EUR', atLeastMinor: 4995, atMostMinor: 9990 })).toEqual([
          placed[2],
          placed[1],
        ]);
        expect(await within({ currency: 'EUR', atLeastMinor: 4995, atMostMinor: 9990 }, 'cursor')).toEqual([
          placed[2],
          placed[1],
        ]);
        expect(await within({ currency: 'EUR', atLeastMinor: 4996 })).toEqual([placed[2]]);
        expect(await within({ currency: 'EUR', atMostMinor: 4995 }, 'cursor')).toEqual([
          placed[1],
          placed[0],
        ]);
        expect(await within({ currency: 'JPY', atLeastMinor: 4995, atMostMinor: 4995 })).toEqual([placed[3]]);
        const none = await model.listOrders({
          kind: 'page',
          customerId: buyer,
          totalWithin: { currency: 'EUR', atLeastMinor: 5000, atMostMinor: 9000 },
          offset: 0,
          limit: 10,
        });
        expect(none).toMatchObject({ orders: [], total: 0 });
      });

      it('walks with cursors in both directions', async () => {
        const first = await model.listOrders({ kind: 'cursor', customerId: customer, limit: 3 });
        expect(first.orders.map((o) => o.id)).toEqual(newestFirst().slice(0, 3));
        expect(first.hasMore).toBe(true);
        const third = first.orders[2]!;
        const second = await model.listOrders({
          kind: 'cursor',
          customerId: customer,
          limit: 3,
          after: { createdAt: third.createdAt, id: third.id },
        });
        expect(second.orders.map((o) => o.id)).toEqual(newestFirst().slice(3, 6));
        const fourth = second.orders[0]!;
        const back = await model.listOrders({
          kind: 'cursor',
          customerId: customer,
          limit: 3,
          before: { createdAt: fourth.createdAt, id: fourth.id },
        });
        expect(back.orders.map((o) => o.id)).toEqual(newestFirst().slice(0, 3));
        expect(back.hasMore).toBe(false);
      });

      it('keeps cursors stable when newer orders arrive meanwhile', async () => {
        const first = await model.listOrders({ kind: 'cursor', customerId: customer, limit: 2 });
        const newer = recordedHistory((id) => [
          placeCommand(id, { customerId: customer, placedAt: '2026-11-21T13:00:00.000Z' }),
        ]);
        await model.applyEvents(newer.events);
        const last = first.orders[1]!;
        const next = await model.listOrders({
          kind: 'cursor',
          customerId: customer,
          limit: 2,
          after: { createdAt: last.createdAt, id: last.id },
        });
        expect(next.orders.map((o) => o.id)).toEqual(newestFirst().slice(2, 4));
      });
    });
  });
};
