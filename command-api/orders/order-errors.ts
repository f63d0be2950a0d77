import {
  InvalidStateTransitionError,
  OrderAlreadyExistsError,
  OrderNotFoundError,
} from '../../domain/orders/order-errors.ts';
import type { OrderAction, OrderStatus } from '../../domain/orders/order.ts';
import { ApiError, notFound } from '../../infrastructure/http/api-error.ts';
import type { ErrorMapper } from '../../infrastructure/http/problem-details.ts';
import { OwnerErasedError } from '../../infrastructure/personal-data/keyring.ts';

/** What a forbidden move says to the caller, as a sentence: "You cannot ship a pending order." */
const refusalOf = (action: OrderAction, status: OrderStatus): string => {
  const what = { confirm: 'confirm', ship: 'ship', deliver: 'deliver', cancel: 'cancel' } as const;
  const order = `${/^[aeiou]/.test(status) ? 'an' : 'a'} ${status} order`;
  return action === 'record-payment'
    ? `You cannot record a payment for ${order}.`
    : `You cannot ${what[action]} ${order}.`;
};

/** How the order domain's refusals answer over HTTP (the order lifecycle, and the errors of the API). */
export const orderErrors: ErrorMapper = (error) => {
  if (error instanceof InvalidStateTransitionError) {
    return new ApiError('invalid-state-transition', refusalOf(error.attemptedAction, error.currentStatus), {
      extensions: { currentStatus: error.currentStatus, attemptedAction: error.attemptedAction },
    });
  }
  if (error instanceof OrderNotFoundError) return notFound('There is no order with this id.');
  if (error instanceof OrderAlreadyExistsError) return new ApiError('conflict', 'This order exists already.');
  // Free text about an order is its customer's: once the customer is erased, none can be written again.
  if (error instanceof OwnerErasedError) {
    return new ApiError(
      'conflict',
      'The order’s customer was erased: nothing written about the order can be kept. Cancel it without a reason.',
    );
  }
  return undefined;
};
