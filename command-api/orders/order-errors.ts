import {
  InvalidStateTransitionError,
  OrderAlreadyExistsError,
  OrderNotFoundError,
  PaymentReferenceConflictError,
} from '../../domain/orders/order-errors.ts';
import { minorUnitDigits, moneyToDecimal } from '../../domain/shared/money.ts';
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
  if (error instanceof PaymentReferenceConflictError) {
    const { currency } = error.recordedAmount;
    const recordedAmount = { amount: moneyToDecimal(error.recordedAmount), currency };
    const recorded = `${recordedAmount.amount.toFixed(minorUnitDigits(currency))} ${currency}`;
    return new ApiError(
      'conflict',
      `A payment with reference ${JSON.stringify(error.reference)} is recorded on this order already, ` +
        `with ${recorded}: a reference names one payment. Send it with that amount to have it ` +
        'acknowledged, or record another payment under a reference of its own.',
      { extensions: { reference: error.reference, recordedAmount } },
    );
  }
  // Free text about an order is its customer's: once the customer is erased, none can be written again.
  if (error instanceof OwnerErasedError) {
    return new ApiError(
      'conflict',
      'The order’s customer was erased: nothing written about the order can be kept. Cancel it without a reason.',
    );
  }
  return undefined;
};
