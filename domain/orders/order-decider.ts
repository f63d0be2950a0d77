import type { Decider } from '../shared/decider.ts';
import { InvariantViolationError, type FieldViolation } from '../shared/errors.ts';
import { addMoney, minorUnitDigits, moneyToDecimal, multiplyMoney, zeroMoney } from '../shared/money.ts';
import type { OrderEvent, OrderPlaced, PaymentReceived } from './order-events.ts';
import {
  InvalidStateTransitionError,
  OrderAlreadyExistsError,
  OrderNotFoundError,
  PaymentReferenceConflictError,
} from './order-errors.ts';
import type { OrderAction, OrderCommand, OrderStatus, PlaceOrder, RecordPayment } from './order.ts';

/**
 * The order lifecycle (pending, confirmed, shipped, delivered; cancelled from pending or confirmed): which
 * statuses each action may start from. Everything not listed here is a forbidden move, answered with
 * InvalidStateTransitionError.
 */
export const allowedFrom: Record<OrderAction, readonly OrderStatus[]> = {
  confirm: ['pending'],
  ship: ['confirmed'],
  deliver: ['shipped'],
  cancel: ['pending', 'confirmed'],
  'record-payment': ['pending', 'confirmed', 'shipped', 'delivered'],
};

/**
 * What deciding needs to know of an order, and nothing more: its status, and what payments must respect.
 * What an order shows (lines, address, payments...) is the order details read model's (projections/orders).
 * A payment is known by its reference (the bank's or the payment provider's): `paymentReferences` holds each
 * reference recorded on the order with the amount (minor units, the order's currency) first recorded under
 * it. A log written before references were the payment's identity may hold one twice: the first counts here.
 */
export type OrderState =
  | { status: 'none' }
  | {
      status: OrderStatus;
      currency: string;
      totalMinor: number;
      paidMinor: number;
      paymentReferences: ReadonlyMap<string, number>;
    };

type PlacedState = Exclude<OrderState, { status: 'none' }>;

export const initialState = (): OrderState => ({ status: 'none' });

export const decide = (command: OrderCommand, state: OrderState): OrderEvent[] => {
  switch (command.type) {
    case 'PlaceOrder':
      return [placeOrder(command, state)];
    case 'ConfirmOrder': {
      const { orderId, confirmedAt } = command.data;
      requireAllowed(state, orderId, 'confirm');
      return [{ type: 'OrderConfirmed', data: { orderId, confirmedAt } }];
    }
    case 'ShipOrder': {
      const { orderId, shippedAt, shipment } = command.data;
      requireAllowed(state, orderId, 'ship');
      const { carrier, trackingNumber, trackingUrl } = shipment;
      return [{ type: 'OrderShipped', data: { orderId, shippedAt, carrier, trackingNumber, trackingUrl } }];
    }
    case 'DeliverOrder': {
      const { orderId, deliveredAt } = command.data;
      requireAllowed(state, orderId, 'deliver');
      return [{ type: 'OrderDelivered', data: { orderId, deliveredAt } }];
    }
    case 'CancelOrder': {
      const { orderId, reason, cancelledAt } = command.data;
      requireAllowed(state, orderId, 'cancel');
      return [{ type: 'OrderCancelled', data: { orderId, reason, cancelledAt } }];
    }
    case 'RecordPayment':
      return recordPayment(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`unknown order command ${JSON.stringify(unknown)}`);
    }
  }
};

export const evolve = (state: OrderState, event: OrderEvent): OrderState => {
  if (event.type === 'OrderPlaced') {
    const { total } = event.data;
    return {
      status: 'pending',
      currency: total.currency,
      totalMinor: total.amountMinor,
      paidMinor: 0,
      paymentReferences: new Map(),
    };
  }
  // Events are facts already accepted by decide: a later event on no order means a corrupt stream.
  if (state.status === 'none') throw new Error(`${event.type} on an order that was never placed`);
  switch (event.type) {
    case 'OrderConfirmed':
      return { ...state, status: 'confirmed' };
    case 'OrderShipped':
      return { ...state, status: 'shipped' };
    case 'OrderDelivered':
      return { ...state, status: 'delivered' };
    case 'OrderCancelled':
      return { ...state, status: 'cancelled' };
    case 'PaymentReceived': {
      const { reference, amount } = event.data;
      return {
        ...state,
        paidMinor: state.paidMinor + amount.amountMinor,
        paymentReferences: state.paymentReferences.has(reference)
          ? state.paymentReferences
          : new Map([...state.paymentReferences, [reference, amount.amountMinor]]),
      };
    }
    default: {
      const unknown: never = event;
      throw new Error(`unknown order event ${JSON.stringify(unknown)}`);
    }
  }
};

export const orderDecider: Decider<OrderCommand, OrderEvent, OrderState> = { initialState, evolve, decide };

const requireAllowed = (state: OrderState, orderId: string, action: OrderAction): PlacedState => {
  if (state.status === 'none') throw new OrderNotFoundError(orderId);
  if (!allowedFrom[action].includes(state.status)) {
    throw new InvalidStateTransitionError(orderId, state.status, action);
  }
  return state;
};

/**
 * The lines as priced, and their total computed here in minor units (refused when beyond what they hold
 * exactly). What a line may be (quantities, one product per line, one currency) is a rule of the request,
 * checked once where it is parsed (command-api/orders/place-order.ts); the decider keeps the rules that
 * depend on the order's state.
 */
const placeOrder = (command: PlaceOrder, state: OrderState): OrderPlaced => {
  const { orderId, customerId, items, shippingAddress, note, placedAt } = command.data;
  if (state.status !== 'none') throw new OrderAlreadyExistsError(orderId);
  const lines = items.map(({ productId, productName, quantity, unitPrice }) => ({
    productId,
    productName,
    quantity,
    unitPrice: { amountMinor: unitPrice.amountMinor, currency: unitPrice.currency },
  }));
  const total = lines.reduce(
    (sum, line) => addMoney(sum, multiplyMoney(line.unitPrice, line.quantity)),
    zeroMoney(items[0].unitPrice.currency),
  );
  const { street, city, postalCode, country } = shippingAddress;
  return {
    type: 'OrderPlaced',
    data: {
      orderId,
      customerId,
      items: lines,
      total: { amountMinor: total.amountMinor, currency: total.currency },
      shippingAddress: { street, city, postalCode, country },
      note,
      placedAt,
    },
  };
};

/**
 * A payment is known by its reference: one recorded already with the same amount is the same payment, told
 * again (a retry, a second notification of the provider), and changes nothing; with another amount it is a
 * conflict. That is asked first, of an order in any status: what is recorded stays recorded, also once the
 * order is paid in full or cancelled. Then what depends on the order: its status, its currency, what is
 * still outstanding.
 */
const recordPayment = (command: RecordPayment, state: OrderState): PaymentReceived[] => {
  const { orderId, paymentId, amount, reference, receivedAt } = command.data;
  if (state.status === 'none') throw new OrderNotFoundError(orderId);
  const recorded = state.paymentReferences.get(reference);
  if (recorded !== undefined) {
    if (amount.currency === state.currency && amount.amountMinor === recorded) return [];
    throw new PaymentReferenceConflictError(orderId, reference, {
      amountMinor: recorded,
      currency: state.currency,
    });
  }
  const order = requireAllowed(state, orderId, 'record-payment');
  const violations: FieldViolation[] = [];
  if (amount.currency !== order.currency) {
    violations.push({ field: 'amount.currency', message: `must be the order's currency ${order.currency}` });
  }
  const outstanding = order.totalMinor - order.paidMinor;
  if (amount.currency === order.currency && amount.amountMinor > outstanding) {
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
  return [
    {
      type: 'PaymentReceived',
      data: {
        orderId,
        paymentId,
        amount: { amountMinor: amount.amountMinor, currency: amount.currency },
        reference,
        receivedAt,
      },
    },
  ];
};
