import type { Decider } from '../decider.ts';
import { InvariantViolationError, type FieldViolation } from '../errors.ts';
import { addMoney, minorUnitDigits, moneyToDecimal, multiplyMoney, zeroMoney, type Money } from '../money.ts';
import { InvalidStateTransitionError, OrderAlreadyExistsError, OrderNotFoundError } from './order-errors.ts';
import type {
  Order,
  OrderAction,
  OrderCommand,
  OrderEvent,
  OrderLine,
  OrderStatus,
  PlaceOrder,
  PlacedOrder,
  RecordPayment,
} from './order.ts';

/**
 * The order lifecycle (service spec, section 3): which statuses each action may start from.
 * Everything not listed here is a forbidden move, answered with InvalidStateTransitionError.
 */
export const allowedFrom: Record<OrderAction, readonly OrderStatus[]> = {
  confirm: ['pending'],
  ship: ['confirmed'],
  deliver: ['shipped'],
  cancel: ['pending', 'confirmed'],
  'record-payment': ['pending', 'confirmed', 'shipped', 'delivered'],
};

export const initialState = (): Order => ({ status: 'none' });

export const decide = (command: OrderCommand, state: Order): OrderEvent[] => {
  switch (command.type) {
    case 'PlaceOrder':
      return [placeOrder(command, state)];
    case 'ConfirmOrder':
      requireAllowed(state, command.data.orderId, 'confirm');
      return [{ type: 'OrderConfirmed', data: command.data }];
    case 'ShipOrder':
      requireAllowed(state, command.data.orderId, 'ship');
      return [{ type: 'OrderShipped', data: command.data }];
    case 'DeliverOrder':
      requireAllowed(state, command.data.orderId, 'deliver');
      return [{ type: 'OrderDelivered', data: command.data }];
    case 'CancelOrder':
      requireAllowed(state, command.data.orderId, 'cancel');
      return [{ type: 'OrderCancelled', data: command.data }];
    case 'RecordPayment':
      return [recordPayment(command, requireAllowed(state, command.data.orderId, 'record-payment'))];
    default: {
      const unknown: never = command;
      throw new Error(`unknown order command ${JSON.stringify(unknown)}`);
    }
  }
};

export const evolve = (state: Order, event: OrderEvent): Order => {
  if (event.type === 'OrderPlaced') {
    const { orderId, placedAt, ...placed } = event.data;
    return {
      status: 'pending',
      id: orderId,
      ...placed,
      payments: [],
      cancellationReason: null,
      createdAt: placedAt,
      updatedAt: placedAt,
    };
  }
  // Events are facts already accepted by decide: a later event on no order means a corrupt stream.
  if (state.status === 'none') throw new Error(`${event.type} on an order that was never placed`);
  switch (event.type) {
    case 'OrderConfirmed':
      return { ...state, status: 'confirmed', updatedAt: event.data.confirmedAt };
    case 'OrderShipped':
      return { ...state, status: 'shipped', updatedAt: event.data.shippedAt };
    case 'OrderDelivered':
      return { ...state, status: 'delivered', updatedAt: event.data.deliveredAt };
    case 'OrderCancelled':
      return {
        ...state,
        status: 'cancelled',
        cancellationReason: event.data.reason,
        updatedAt: event.data.cancelledAt,
      };
    case 'PaymentReceived': {
      const { orderId: _orderId, ...payment } = event.data;
      return { ...state, payments: [...state.payments, payment], updatedAt: event.data.receivedAt };
    }
    default: {
      const unknown: never = event;
      throw new Error(`unknown order event ${JSON.stringify(unknown)}`);
    }
  }
};

export const orderDecider: Decider<OrderCommand, OrderEvent, Order> = { initialState, evolve, decide };

export const amountPaid = (order: PlacedOrder): Money =>
  order.payments.reduce((sum, payment) => addMoney(sum, payment.amount), zeroMoney(order.total.currency));

const requireAllowed = (state: Order, orderId: string, action: OrderAction): PlacedOrder => {
  if (state.status === 'none') throw new OrderNotFoundError(orderId);
  if (!allowedFrom[action].includes(state.status)) {
    throw new InvalidStateTransitionError(state.id, state.status, action);
  }
  return state;
};

const placeOrder = (command: PlaceOrder, state: Order): OrderEvent => {
  const { orderId, items } = command.data;
  if (state.status !== 'none') throw new OrderAlreadyExistsError(orderId);
  const violations = lineViolations(items);
  if (violations.length > 0) throw new InvariantViolationError(violations);
  const [first] = items as [OrderLine, ...OrderLine[]];
  const total = items.reduce(
    (sum, line) => addMoney(sum, multiplyMoney(line.unitPrice, line.quantity)),
    zeroMoney(first.unitPrice.currency),
  );
  return { type: 'OrderPlaced', data: { ...command.data, total } };
};

const lineViolations = (items: readonly OrderLine[]): FieldViolation[] => {
  if (items.length === 0) return [{ field: 'items', message: 'an order needs at least one item' }];
  const violations: FieldViolation[] = [];
  const currency = items[0]?.unitPrice.currency;
  const seen = new Set<string>();
  items.forEach((line, index) => {
    if (!Number.isSafeInteger(line.quantity) || line.quantity <= 0) {
      violations.push({ field: `items[${index}].quantity`, message: 'must be an integer greater than 0' });
    }
    if (!Number.isSafeInteger(line.unitPrice.amountMinor) || line.unitPrice.amountMinor < 0) {
      violations.push({ field: `items[${index}].unitPrice`, message: 'must be a non-negative amount' });
    }
    if (line.unitPrice.currency !== currency) {
      violations.push({ field: `items[${index}].unitPrice`, message: 'all items must share one currency' });
    }
    if (seen.has(line.productId)) {
      violations.push({ field: `items[${index}].productId`, message: 'product appears more than once' });
    }
    seen.add(line.productId);
  });
  return violations;
};

const recordPayment = (command: RecordPayment, order: PlacedOrder): OrderEvent => {
  const { amount } = command.data;
  const violations: FieldViolation[] = [];
  if (amount.currency !== order.total.currency) {
    violations.push({
      field: 'amount.currency',
      message: `must be the order's currency ${order.total.currency}`,
    });
  }
  if (!Number.isSafeInteger(amount.amountMinor) || amount.amountMinor <= 0) {
    violations.push({ field: 'amount.amount', message: 'must be greater than 0' });
  }
  if (order.payments.some((payment) => payment.paymentId === command.data.paymentId)) {
    violations.push({ field: 'paymentId', message: 'payment already recorded' });
  }
  const outstanding = order.total.amountMinor - amountPaid(order).amountMinor;
  if (amount.currency === order.total.currency && amount.amountMinor > outstanding) {
    const due = moneyToDecimal({ amountMinor: outstanding, currency: amount.currency }).toFixed(
      minorUnitDigits(amount.currency),
    );
    violations.push({
      field: 'amount.amount',
      message:
        outstanding > 0
          ? `must be at most what is outstanding: ${due} ${amount.currency}`
          : 'the order is paid in full',
    });
  }
  if (violations.length > 0) throw new InvariantViolationError(violations);
  return { type: 'PaymentReceived', data: command.data };
};
