import {
  SubscriptionAlreadyExistsError,
  SubscriptionNotFoundError,
} from '../domain/webhook-subscription/webhook-subscription-errors.ts';
import { ApiError, notFound } from '../infrastructure/http/api-error.ts';
import type { ErrorMapper } from '../infrastructure/http/problem-details.ts';
import { SubscriptionBusyError } from './webhook-subscription-handler.ts';

/** How the subscription domain's refusals answer over HTTP. */
export const webhookErrors: ErrorMapper = (error) => {
  if (error instanceof SubscriptionNotFoundError)
    return notFound('There is no webhook subscription with this id.');
  if (error instanceof SubscriptionAlreadyExistsError) {
    return new ApiError('conflict', 'This webhook subscription exists already.');
  }
  if (error instanceof SubscriptionBusyError) {
    return new ApiError('conflict', 'The subscription is being changed by others right now. Retry.', {
      headers: { 'Retry-After': '1' },
    });
  }
  return undefined;
};
