import { describe, expect, it } from 'vitest';
import { InvariantViolationError } from '../../domain/shared/errors.ts';
import { orderDecider } from '../../domain/orders/order-decider.ts';
import { OrderAlreadyExistsError } from '../../domain/orders/order-errors.ts';
import { deciderSpecification } from '../support/decider-specification.ts';
import { line, orderPlaced, placeOrder } from '../support/order-fixtures.ts';

const spec = deciderSpecification(orderDecider);

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
      paymentIds: [],
    });
  });

  it('needs at least one item', () => {
    spec
      .given([])
      .when(placeOrder([]))
      .thenThrows(InvariantViolationError, {
        violations: [{ field: 'items', message: 'an order needs at least one item' }],
      });
  });

  it('reports every bad line at once, with its index', () => {
    spec
      .given([])
      .when(placeOrder([line('a', 0, 100), line('b', 1.5, 100), line('a', 1, 100), line('c', 1, 100, 'USD')]))
      .thenThrows(InvariantViolationError, {
        violations: [
          { field: 'items[0].quantity', message: 'must be an integer greater than 0' },
          { field: 'items[1].quantity', message: 'must be an integer greater than 0' },
          { field: 'items[2].productId', message: 'product appears more than once' },
          { field: 'items[3].unitPrice', message: 'all items must share one currency' },
        ],
      });
  });

  it('refuses a negative quantity', () => {
    spec
      .given([])
      .when(placeOrder([line('a', -1, 100)]))
      .thenThrows(InvariantViolationError, {
        violations: [{ field: 'items[0].quantity', message: 'must be an integer greater than 0' }],
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
