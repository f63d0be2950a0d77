import { DomainError } from '../shared/errors.ts';
import type { Money } from '../shared/money.ts';
import type { OrderAction, OrderStatus } from './order.ts';

/** The state machine of the order lifecycle forbids this move from the current status. */
export class InvalidStateTransitionError extends DomainError {
  readonly kind = 'invalid-state-transition';
  readonly orderId: string;
  readonly currentStatus: OrderStatus;
  readonly attemptedAction: OrderAction;
  constructor(orderId: string, currentStatus: OrderStatus, attemptedAction: OrderAction) {
    super(`cannot ${attemptedAction} an order that is ${currentStatus}`);
    this.orderId = orderId;
    this.currentStatus = currentStatus;
    this.attemptedAction = attemptedAction;
  }
}

export class OrderNotFoundError extends DomainError {
  readonly kind = 'order-not-found';
  readonly orderId: string;
  constructor(orderId: string) {
    super(`order ${orderId} does not exist`);
    this.orderId = orderId;
  }
}

export class OrderAlreadyExistsError extends DomainError {
  readonly kind = 'order-already-exists';
  readonly orderId: string;
  constructor(orderId: string) {
    super(`order ${orderId} already exists`);
    this.orderId = orderId;
  }
}

/**
 * A payment reference names one payment: recorded on this order already with another amount, it cannot be
 * recorded again. (With the same amount it is the same payment, and nothing is recorded.)
 */
export class PaymentReferenceConflictError extends DomainError {
  readonly kind = 'payment-reference-conflict';
  readonly orderId: string;
  readonly reference: string;
  /** What the payment of this reference recorded. */
  readonly recordedAmount: Money;
  constructor(orderId: string, reference: string, recordedAmount: Money) {
    super(`payment ${reference} is recorded on order ${orderId} already, with another amount`);
    this.orderId = orderId;
    this.reference = reference;
    this.recordedAmount = recordedAmount;
  }
}
