// The resources of the public API the console reads, as the OpenAPI document (/openapi.json) describes
// them; the order's come from its one schema. Types only: no module imports this file at run time.

import type { CurrentOrderResource, OrderResource } from '../../../domain/orders/order-resource.ts';
import type { OrderCustomers } from '../../orders/order-customers.ts';
import type { PendingDeliveryResource } from '../../../webhooks/deliveries/pending-delivery-schema.ts';

export type Role = 'customer' | 'staff' | 'auditor' | 'admin';
export type OrderStatus = Order['status'];
export type OrderAction = NonNullable<Order['actions']>[number];
export type Money = Order['total'];

export type Tokens = {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
};

export type CurrentUser = { id: string; email: string; name: string; roles: Role[] };

/** The order resource's one schema (domain/orders/order-resource.ts); `actions` absent on a past revision. */
export type Order = OrderResource & Partial<Pick<CurrentOrderResource, 'actions'>>;

export type CursorPage<T> = {
  meta: { perPage: number };
  links: { next: string | null; prev: string | null };
  data: T[];
};

/** A page of orders names their customers (the API's one schema, query-api/orders/order-customers.ts). */
export type OrderPage = CursorPage<Order> & { customers: OrderCustomers };
export type { OrderCustomers };

export type Actor = { userId?: string; roles: readonly string[] } | null;

export type StoredEvent = {
  id: string;
  type: string;
  streamId: string;
  revision: number;
  version: number;
  position?: string;
  occurredAt: string;
  actor: Actor;
  correlationId: string;
  data: Record<string, unknown>;
};

export type Subscription = {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
  /** How its latest 50 attempts went (GET /webhooks, GET /webhooks/{id}). */
  deliveryStats: DeliveryStats;
};

export type DeliveryStats = {
  attempts: number;
  delivered: number;
  successRate: number | null;
  lastOutcome: DeliveryOutcome | null;
  lastAttemptAt: string | null;
};

export type DeliveryOutcome =
  'delivered' | 'failed' | 'timeout' | 'network-error' | 'refused' | 'gone' | 'cancelled';

export type DeliveryAttempt = {
  id: string;
  deliveryId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  attemptedAt: string;
  durationMs: number | null;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  responseBodyTruncated: boolean;
  nextAttemptAt: string | null;
  deadLettered: boolean;
  outcome: DeliveryOutcome;
  /** What the attempt sent; absent when it sent nothing or was recorded before requests were kept. */
  request?: { headers: Record<string, string>; body: unknown };
};

/** GET /webhooks/{id}/deliveries/pending: a delivery not settled yet (its one schema, webhooks/deliveries/). */
export type PendingDelivery = PendingDeliveryResource;

export type PendingDeliveryList = { meta: { limit: number; more: boolean }; data: PendingDelivery[] };

export type Problem = {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  errors?: { field: string; message: string }[];
  currentStatus?: string;
  attemptedAction?: string;
  checks?: Record<string, { status: string; detail?: string }>;
  [member: string]: unknown;
};

export type Readiness = {
  status: string;
  checks?: Record<string, { status: 'ok' | 'failing' | string; detail?: string }>;
};
