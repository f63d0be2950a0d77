import { describe, expect, it } from 'vitest';
import { InvariantViolationError } from '../../domain/shared/errors.ts';
import { orderDecider } from '../../domain/orders/order-decider.ts';
import { OrderAlreadyExistsError } from '../../domain/orders/order-errors.ts';
import { deciderSpecification } from '../support/decider-specification.ts';
import { line, orderPlaced, placeOrder } from '../support/order-fixtures.ts';

const spec = deciderSpecification(orderDecider);

// What a line may be (quantities, distinct products, one currency) is a rule of the request, specified in
// test/orders/place-order-request.unit.spec.ts; the decider's refusals here depend on the order's state.
describe('placing an order', () => {
  it('records the priced lines and their total in minor units', () => {
    spec.given([]).when(placeOrder()).then([orderPlaced()]);
  });

  it('starts the order as pending, owing its total', () => {
    const state = orderDecider.evolve(orderDecider.initialState(), orderPlaced());
    expect(state).toEqual({
      status: 'pending',
      currency: 'EUR',
      totalMinor: 4498,
      paidMinor: 0,
      paymentReferences: new Map(),
    });
  });

  it('cannot place the same order twice', () => {
    spec.given([orderPlaced()]).when(placeOrder()).thenThrows(OrderAlreadyExistsError);
  });

  it('refuses a total beyond what integer minor units can hold exactly', () => {
    spec
      .given([])
      .when(placeOrder([line('a', 1000, Number.MAX_SAFE_INTEGER)]))
      .thenThrows(InvariantViolationError);
  });
});
