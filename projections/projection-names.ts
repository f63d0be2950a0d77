/** The projections' names: their checkpoints are stored under them, and queries wait on them. */
export const orderProjectionName = 'orders';
export const subscriptionProjectionName = 'webhook-subscriptions';
