import {
  SubscriptionAlreadyExistsError,
  SubscriptionNotFoundError,
} from '../../domain/webhook-subscriptions/subscription-errors.ts';
import { ApiError, notFound } from '../../infrastructure/http/api-error.ts';
import type { ErrorMapper } from '../../infrastructure/http/problem-details.ts';

/** How the subscription domain's refusals answer over HTTP. */
export const webhookErrors: ErrorMapper = (error) => {
  if (error instanceof SubscriptionNotFoundError)
    return notFound('There is no webhook subscription with this id.');
  if (error instanceof SubscriptionAlreadyExistsError) {
    return new ApiError('conflict', 'This webhook subscription exists already.');
  }
  return undefined;
};
