import type { Line } from '../webhooks/deliveries/delivery-queue.ts';

/** A line: a subscription's deliveries of one order, delivered one at a time, in order. */
export const lineOf = ({ subscriptionId, orderingKey }: Line) => `${subscriptionId}\n${orderingKey}`;
