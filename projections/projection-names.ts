/** The projections' names, as their log lines, metrics and readiness checks show them. */
export const orderProjectionName = 'orders';
export const subscriptionProjectionName = 'webhook-subscriptions';

/**
 * Where each projection's checkpoint is stored, and what queries waiting on a Consistency-Token read. The
 * orders' carries the version of the documents its fold writes (2: shipped orders gained `shipment`; 3: sealed
 * personal fields are objects, `{"sealed": token}`, no longer bare token strings, and the cancellation
 * reason is sealed): a
 * read model built by an earlier version has no checkpoint under this name, so it is emptied and rebuilt
 * from the log at the next start (projections/orders/order-read-model-version.ts).
 */
export const checkpointNames = {
  [orderProjectionName]: 'orders-v3',
  [subscriptionProjectionName]: subscriptionProjectionName,
} as const;
