import { describe, it } from 'vitest';
import { orderDecider } from '../../domain/orders/order-decider.ts';
import { InvalidStateTransitionError, OrderNotFoundError } from '../../domain/orders/order-errors.ts';
import type { OrderEvent } from '../../domain/orders/order-events.ts';
import type { OrderAction, OrderCommand, OrderStatus } from '../../domain/orders/order.ts';
import { deciderSpecification } from '../support/decider-specification.ts';
import { at, historyIn, noShipmentDetails, orderId } from '../support/order-fixtures.ts';

const spec = deciderSpecification(orderDecider);

const commandFor = (action: Exclude<OrderAction, 'record-payment'>): OrderCommand => {
  switch (action) {
    case 'confirm':
      return { type: 'ConfirmOrder', data: { orderId, confirmedAt: at(10) } };
    case 'ship':
      return { type: 'ShipOrder', data: { orderId, shippedAt: at(10), shipment: noShipmentDetails } };
    case 'deliver':
      return { type: 'DeliverOrder', data: { orderId, deliveredAt: at(10) } };
    case 'cancel':
      return { type: 'CancelOrder', data: { orderId, reason: 'changed my mind', cancelledAt: at(10) } };
  }
};

const eventFor = (action: Exclude<OrderAction, 'record-payment'>): OrderEvent => {
  switch (action) {
    case 'confirm':
      return { type: 'OrderConfirmed', data: { orderId, confirmedAt: at(10) } };
    case 'ship':
      return { type: 'OrderShipped', data: { orderId, shippedAt: at(10), ...noShipmentDetails } };
    case 'deliver':
      return { type: 'OrderDelivered', data: { orderId, deliveredAt: at(10) } };
    case 'cancel':
      return { type: 'OrderCancelled', data: { orderId, reason: 'changed my mind', cancelledAt: at(10) } };
  }
};

// The lifecycle, row by row.
const specTable: { from: OrderStatus; action: Exclude<OrderAction, 'record-payment'>; allowed: boolean }[] = [
  { from: 'pending', action: 'confirm', allowed: true },
  { from: 'confirmed', action: 'ship', allowed: true },
  { from: 'shipped', action: 'deliver', allowed: true },
  { from: 'pending', action: 'cancel', allowed: true },
  { from: 'confirmed', action: 'cancel', allowed: true },
  { from: 'shipped', action: 'cancel', allowed: false },
  { from: 'delivered', action: 'cancel', allowed: false },
  // A cancelled order cannot be reactivated: no move takes it anywhere.
  { from: 'cancelled', action: 'confirm', allowed: false },
  { from: 'cancelled', action: 'ship', allowed: false },
  { from: 'cancelled', action: 'deliver', allowed: false },
  { from: 'cancelled', action: 'cancel', allowed: false },
];

// Every other move skips or reverses a step of the lifecycle, which the lifecycle forbids.
const outOfOrder: { from: OrderStatus; action: Exclude<OrderAction, 'record-payment'> }[] = [
  { from: 'pending', action: 'ship' },
  { from: 'pending', action: 'deliver' },
  { from: 'confirmed', action: 'confirm' },
  { from: 'confirmed', action: 'deliver' },
  { from: 'shipped', action: 'confirm' },
  { from: 'shipped', action: 'ship' },
  { from: 'delivered', action: 'confirm' },
  { from: 'delivered', action: 'ship' },
  { from: 'delivered', action: 'deliver' },
];

describe('order lifecycle (service spec, section 3)', () => {
  describe.each(specTable.filter((row) => row.allowed))('$action from $from', ({ from, action }) => {
    it('is allowed and records the move', () => {
      spec
        .given(historyIn(from))
        .when(commandFor(action))
        .then([eventFor(action)]);
    });
  });

  describe.each([...specTable.filter((row) => !row.allowed), ...outOfOrder])(
    '$action from $from',
    ({ from, action }) => {
      it('is forbidden, naming the current status and the attempted action', () => {
        spec
          .given(historyIn(from))
          .when(commandFor(action))
          .thenThrows(InvalidStateTransitionError, { currentStatus: from, attemptedAction: action, orderId });
      });
    },
  );

  it.each(['confirm', 'ship', 'deliver', 'cancel'] as const)(
    '%s on an order never placed is not found',
    (action) => {
      spec.given([]).when(commandFor(action)).thenThrows(OrderNotFoundError, { orderId });
    },
  );
});
