import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replay } from '../../domain/shared/decider.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { orderDecider } from '../../domain/orders/order-decider.ts';
import type { OrderState } from '../../domain/orders/order-decider.ts';
import type { OrderEvent } from '../../domain/orders/order-events.ts';
import type { OrderCommand, OrderStatus } from '../../domain/orders/order.ts';
import { at, line, noShipmentDetails, orderId, placeOrder } from '../support/order-fixtures.ts';

/**
 * The order lifecycle, written out independently of the decider:
 * which status each event moves an order to, from which statuses.
 */
const legalMoves: Record<OrderEvent['type'], { from: (OrderStatus | 'none')[]; to: OrderStatus | 'same' }> = {
  OrderPlaced: { from: ['none'], to: 'pending' },
  OrderConfirmed: { from: ['pending'], to: 'confirmed' },
  OrderShipped: { from: ['confirmed'], to: 'shipped' },
  OrderDelivered: { from: ['shipped'], to: 'delivered' },
  OrderCancelled: { from: ['pending', 'confirmed'], to: 'cancelled' },
  PaymentReceived: { from: ['pending', 'confirmed', 'shipped', 'delivered'], to: 'same' },
};

const assertLegalHistory = (history: OrderEvent[]) => {
  let status: OrderStatus | 'none' = 'none';
  for (const event of history) {
    const move = legalMoves[event.type];
    expect(move.from, `${event.type} from ${status}`).toContain(status);
    if (move.to !== 'same') status = move.to;
  }
};

const timestamp = fc.integer({ min: 0, max: 59 }).map(at);

const asLine = (l: { productId: string; quantity: number; price: number }) =>
  line(l.productId, l.quantity, l.price);

// Commands as the request schemas let them through (command-api/orders): lines with distinct products and
// positive quantities, positive payments. The decider's refusals are the ones that depend on state.
const command: fc.Arbitrary<OrderCommand> = fc.oneof(
  fc
    .uniqueArray(
      fc.record({
        productId: fc.constantFrom('p-1', 'p-2', 'p-3'),
        quantity: fc.integer({ min: 1, max: 1000 }),
        price: fc.integer({ min: 0, max: 100_000 }),
      }),
      { minLength: 1, maxLength: 3, selector: (l) => l.productId },
    )
    .map(([first, ...rest]) => placeOrder([asLine(first!), ...rest.map(asLine)])),
  timestamp.map((confirmedAt): OrderCommand => ({ type: 'ConfirmOrder', data: { orderId, confirmedAt } })),
  timestamp.map((shippedAt): OrderCommand => ({
    type: 'ShipOrder',
    data: { orderId, shippedAt, shipment: noShipmentDetails },
  })),
  timestamp.map((deliveredAt): OrderCommand => ({ type: 'DeliverOrder', data: { orderId, deliveredAt } })),
  fc.tuple(timestamp, fc.option(fc.string({ maxLength: 20 }))).map(([cancelledAt, reason]): OrderCommand => ({
    type: 'CancelOrder',
    data: { orderId, reason, cancelledAt },
  })),
  fc
    .tuple(
      timestamp,
      fc.integer({ min: 1, max: 10_000 }),
      fc.constantFrom('EUR', 'USD'),
      fc.constantFrom('a', 'b'),
      fc.constantFrom('ref-1', 'ref-2', 'ref-3'),
    )
    .map(([receivedAt, amountMinor, currency, paymentId, reference]): OrderCommand => ({
      type: 'RecordPayment',
      data: { orderId, paymentId, amount: { amountMinor, currency }, reference, receivedAt },
    })),
);

/** Runs commands the way a command handler does: decide on the current state, keep the events, skip refusals. */
const run = (commands: OrderCommand[]): { history: OrderEvent[]; state: OrderState } => {
  let state = orderDecider.initialState();
  const history: OrderEvent[] = [];
  for (const cmd of commands) {
    let events: OrderEvent[];
    try {
      events = orderDecider.decide(cmd, state);
    } catch (error) {
      if (error instanceof DomainError) continue;
      throw error;
    }
    for (const event of events) state = orderDecider.evolve(state, event);
    history.push(...events);
  }
  return { history, state };
};

describe('order histories (property-based)', () => {
  it('random sequences of commands never produce a history the state machine forbids', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        assertLegalHistory(run(commands).history);
      }),
      { numRuns: 2000 },
    );
  });

  it('replaying any history rebuilds the same state', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        const { history, state } = run(commands);
        expect(replay(orderDecider, history)).toEqual(state);
        // and the history survives the trip through JSON that every event store makes
        expect(replay(orderDecider, JSON.parse(JSON.stringify(history)) as OrderEvent[])).toEqual(state);
      }),
      { numRuns: 2000 },
    );
  });

  it('payments never exceed the total, whatever their order', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        const { state } = run(commands);
        if (state.status !== 'none') expect(state.paidMinor).toBeLessThanOrEqual(state.totalMinor);
      }),
      { numRuns: 2000 },
    );
  });

  it('records each payment reference once: what was paid is the sum over distinct references', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        const { history, state } = run(commands);
        const references = history.flatMap((event) =>
          event.type === 'PaymentReceived' ? [event.data.reference] : [],
        );
        expect(new Set(references).size).toBe(references.length);
        if (state.status !== 'none') expect(state.paymentReferences.size).toBe(references.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('the generator reaches every status, so the properties above are not vacuous', () => {
    const reached = new Set<string>();
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        reached.add(run(commands).state.status);
      }),
      { numRuns: 2000, seed: 42 },
    );
    expect([...reached].sort()).toEqual([
      'cancelled',
      'confirmed',
      'delivered',
      'none',
      'pending',
      'shipped',
    ]);
  });
});
