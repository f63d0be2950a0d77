import { DomainError } from '../shared/errors.ts';
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
