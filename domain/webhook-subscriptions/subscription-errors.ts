import { DomainError } from '../shared/errors.ts';

export class SubscriptionNotFoundError extends DomainError {
  readonly kind = 'subscription-not-found';
  readonly subscriptionId: string;
  constructor(subscriptionId: string) {
    super(`webhook subscription ${subscriptionId} does not exist`);
    this.subscriptionId = subscriptionId;
  }
}

export class SubscriptionAlreadyExistsError extends DomainError {
  readonly kind = 'subscription-already-exists';
  readonly subscriptionId: string;
  constructor(subscriptionId: string) {
    super(`webhook subscription ${subscriptionId} already exists`);
    this.subscriptionId = subscriptionId;
  }
}
