import {
  InvalidStateTransitionError,
  OrderAlreadyExistsError,
  OrderNotFoundError,
} from '../domain/order/order-errors.ts';
import { ApiError, notFound } from '../infrastructure/http/api-error.ts';
import type { ErrorMapper } from '../infrastructure/http/problem-details.ts';
import { ConcurrencyExhaustedError } from './order-command-handler.ts';

/** How the order domain's refusals answer over HTTP (decisions.md, Orders and Errors). */
export const orderErrors: ErrorMapper = (error) => {
  if (error instanceof InvalidStateTransitionError) {
    return new ApiError(
      'invalid-state-transition',
      `You cannot ${error.attemptedAction} an order that is ${error.currentStatus}.`,
      {
        extensions: { currentStatus: error.currentStatus, attemptedAction: error.attemptedAction },
      },
    );
  }
  if (error instanceof OrderNotFoundError) return notFound('There is no order with this id.');
  if (error instanceof OrderAlreadyExistsError) return new ApiError('conflict', 'This order exists already.');
  if (error instanceof ConcurrencyExhaustedError) {
    return new ApiError('conflict', 'The order is being changed by others right now. Retry.', {
      headers: { 'Retry-After': '1' },
    });
  }
  return undefined;
};
