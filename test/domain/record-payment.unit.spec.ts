import { describe, expect, it } from 'vitest';
import { InvariantViolationError } from '../../domain/shared/errors.ts';
import { orderDecider } from '../../domain/orders/order-decider.ts';
import { InvalidStateTransitionError } from '../../domain/orders/order-errors.ts';
import type { OrderEvent } from '../../domain/orders/order-events.ts';
import type { OrderCommand, OrderStatus } from '../../domain/orders/order.ts';
import { replay } from '../../domain/shared/decider.ts';
import { deciderSpecification } from '../support/decider-specification.ts';
import { at, historyIn, orderId } from '../support/order-fixtures.ts';

const spec = deciderSpecification(orderDecider);

const recordPayment = (amountMinor: number, currency = 'EUR', paymentId = 'pay-1'): OrderCommand => ({
  type: 'RecordPayment',
  data: { orderId, paymentId, amount: { amountMinor, currency }, reference: 'bank-42', receivedAt: at(20) },
});

const paymentReceived = (amountMinor: number, paymentId = 'pay-1'): OrderEvent => ({
  type: 'PaymentReceived',
  data: {
    orderId,
    paymentId,
    amount: { amountMinor, currency: 'EUR' },
    reference: 'bank-42',
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

  it('does not record the same payment twice', () => {
    spec
      .given([...historyIn('pending'), paymentReceived(1000)])
      .when(recordPayment(1000))
      .thenThrows(InvariantViolationError, {
        violations: [{ field: 'paymentId', message: 'payment already recorded' }],
      });
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
