import { describe, expect, it } from 'vitest';
import { InvariantViolationError } from '../../domain/shared/errors.ts';
import { orderDecider } from '../../domain/orders/order-decider.ts';
import {
  InvalidStateTransitionError,
  OrderNotFoundError,
  PaymentReferenceConflictError,
} from '../../domain/orders/order-errors.ts';
import type { OrderEvent } from '../../domain/orders/order-events.ts';
import type { OrderCommand, OrderStatus } from '../../domain/orders/order.ts';
import { replay } from '../../domain/shared/decider.ts';
import { deciderSpecification } from '../support/decider-specification.ts';
import { at, historyIn, orderCancelled, orderId, orderPlaced } from '../support/order-fixtures.ts';

const spec = deciderSpecification(orderDecider);

const recordPayment = (
  amountMinor: number,
  currency = 'EUR',
  paymentId = 'pay-1',
  reference = `bank-${paymentId}`,
): OrderCommand => ({
  type: 'RecordPayment',
  data: { orderId, paymentId, amount: { amountMinor, currency }, reference, receivedAt: at(20) },
});

const paymentReceived = (
  amountMinor: number,
  paymentId = 'pay-1',
  reference = `bank-${paymentId}`,
): OrderEvent => ({
  type: 'PaymentReceived',
  data: {
    orderId,
    paymentId,
    amount: { amountMinor, currency: 'EUR' },
    reference,
    receivedAt: at(20),
  },
});

describe('recording a payment', () => {
  it.each<OrderStatus>(['pending', 'confirmed', 'shipped', 'delivered'])(
    'is accepted on a %s order',
    (status) => {
      spec
        .given(historyIn(status))
        .when(recordPayment(4498))
        .then([paymentReceived(4498)]);
    },
  );

  it('is refused on a cancelled order', () => {
    spec.given(historyIn('cancelled')).when(recordPayment(4498)).thenThrows(InvalidStateTransitionError, {
      currentStatus: 'cancelled',
      attemptedAction: 'record-payment',
    });
  });

  // That an amount is positive is a rule of the request (command-api/orders/order-schemas.ts), checked
  // before any command is made; what depends on the order is checked here.
  it("must be in the order's currency", () => {
    spec
      .given(historyIn('pending'))
      .when(recordPayment(100, 'USD'))
      .thenThrows(InvariantViolationError, {
        violations: [{ field: 'amount.currency', message: "must be the order's currency EUR" }],
      });
  });

  it('is refused on no order', () => {
    spec.given([]).when(recordPayment(100)).thenThrows(OrderNotFoundError, { orderId });
  });
  it('takes no more than what is outstanding', () => {
    spec
      .given([...historyIn('confirmed'), paymentReceived(4000)])
      .when(recordPayment(499, 'EUR', 'pay-2'))
      .thenThrows(InvariantViolationError, {
        violations: [{ field: 'amount.amount', message: 'must be at most what is outstanding: 4.98 EUR' }],
      });
    spec
      .given([...historyIn('confirmed'), paymentReceived(4000)])
      .when(recordPayment(498, 'EUR', 'pay-2'))
      .then([{ ...paymentReceived(498, 'pay-2') }]);
    spec
      .given([...historyIn('confirmed'), paymentReceived(4498)])
      .when(recordPayment(1, 'EUR', 'pay-2'))
      .thenThrows(InvariantViolationError, {
        violations: [{ field: 'amount.amount', message: 'the order is paid in full' }],
      });
  });

  it('adds up what was paid without changing the status', () => {
    const state = replay(orderDecider, [
      ...historyIn('confirmed'),
      paymentReceived(1000),
      paymentReceived(498, 'pay-2'),
    ]);
    expect(state.status).toBe('confirmed');
    if (state.status === 'none') throw new Error('order should exist');
    expect(state).toMatchObject({ paidMinor: 1498, currency: 'EUR' });
  });
});

describe('a payment reference names one payment of the order', () => {
  it('recorded already with the same amount: the same payment, told again; nothing is recorded', () => {
    spec
      .given([...historyIn('pending'), paymentReceived(1000, 'pay-1', 'bank-42')])
      .when(recordPayment(1000, 'EUR', 'pay-2', 'bank-42'))
      .then([]);
  });

  it('is asked before the paid-in-full refusal: a retry of the payment that paid the order is no error', () => {
    spec
      .given([...historyIn('confirmed'), paymentReceived(4498, 'pay-1', 'bank-42')])
      .when(recordPayment(4498, 'EUR', 'pay-2', 'bank-42'))
      .then([]);
  });

  it('is asked whatever the status since: a retry after the order was cancelled or delivered changes nothing', () => {
    spec
      .given([orderPlaced(), paymentReceived(1000, 'pay-1', 'bank-42'), orderCancelled()])
      .when(recordPayment(1000, 'EUR', 'pay-2', 'bank-42'))
      .then([]);
    spec
      .given([...historyIn('delivered'), paymentReceived(1000, 'pay-1', 'bank-42')])
      .when(recordPayment(1000, 'EUR', 'pay-2', 'bank-42'))
      .then([]);
  });

  it('recorded already with another amount: a conflict naming what was recorded', () => {
    spec
      .given([...historyIn('pending'), paymentReceived(1000, 'pay-1', 'bank-42')])
      .when(recordPayment(1001, 'EUR', 'pay-2', 'bank-42'))
      .thenThrows(PaymentReferenceConflictError, {
        reference: 'bank-42',
        recordedAmount: { amountMinor: 1000, currency: 'EUR' },
      });
  });

  it('in another currency it is another amount: a conflict, not the currency refusal', () => {
    spec
      .given([...historyIn('pending'), paymentReceived(1000, 'pay-1', 'bank-42')])
      .when(recordPayment(1000, 'USD', 'pay-2', 'bank-42'))
      .thenThrows(PaymentReferenceConflictError, { reference: 'bank-42' });
  });

  it('another reference with the same amount is another payment', () => {
    spec
      .given([...historyIn('pending'), paymentReceived(1000, 'pay-1', 'bank-42')])
      .when(recordPayment(1000, 'EUR', 'pay-2', 'bank-43'))
      .then([paymentReceived(1000, 'pay-2', 'bank-43')]);
  });

  it('counts once: what was paid is the sum of the payments of distinct references', () => {
    const state = replay(orderDecider, [...historyIn('pending'), paymentReceived(1000, 'pay-1', 'bank-42')]);
    const after = orderDecider
      .decide(recordPayment(1000, 'EUR', 'pay-2', 'bank-42'), state)
      .reduce(orderDecider.evolve, state);
    expect(after).toMatchObject({ paidMinor: 1000 });
  });

  it('a log that recorded a reference twice (before references named payments) compares with the first', () => {
    const twice = [
      ...historyIn('pending'),
      paymentReceived(1000, 'pay-1', 'bank-42'),
      paymentReceived(500, 'pay-2', 'bank-42'),
    ];
    spec
      .given(twice)
      .when(recordPayment(1000, 'EUR', 'pay-3', 'bank-42'))
      .then([]);
    spec
      .given(twice)
      .when(recordPayment(500, 'EUR', 'pay-3', 'bank-42'))
      .thenThrows(PaymentReferenceConflictError, { recordedAmount: { amountMinor: 1000, currency: 'EUR' } });
  });
});

describe('cancelling a paid order', () => {
  it.each<OrderStatus>(['pending', 'confirmed'])(
    'is accepted on a %s order that received payments',
    (status) => {
      spec
        .given([...historyIn(status), paymentReceived(1000), paymentReceived(498, 'pay-2')])
        .when({ type: 'CancelOrder', data: { orderId, reason: 'out of stock', cancelledAt: at(30) } })
        .then([{ type: 'OrderCancelled', data: { orderId, reason: 'out of stock', cancelledAt: at(30) } }]);
    },
  );
});
