// The resources of the public API the console reads, as the OpenAPI document (/openapi.json) describes
// them. Types only: no module imports this file at run time.

export type Role = 'customer' | 'staff' | 'auditor' | 'admin';
export type OrderStatus = 'pending' | 'confirmed' | 'shipped' | 'delivered' | 'cancelled';
export type OrderAction = 'confirm' | 'ship' | 'deliver' | 'record-payment' | 'cancel';
export type Money = { amount: number; currency: string };

export type Tokens = {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
};

export type CurrentUser = { id: string; email: string; name: string; roles: Role[] };

export type Order = {
  id: string;
  status: OrderStatus;
  customerId: string;
  items: { productId: string; productName: string; quantity: number; unitPrice: Money }[];
  total: Money;
  shippingAddress: Record<string, unknown> | null;
  note: string | null;
  payments: { id: string; amount: Money; reference: string; receivedAt: string }[];
  cancellationReason: string | null;
  /** What the caller may do to the order now (absent on a past revision). */
  actions?: OrderAction[];
  /** Once an order that received payments is cancelled: what was paid, owed back. */
  refundDue?: Money;
  /** Once shipped. */
  shipment?: {
    carrier: string | null;
    trackingNumber: string | null;
    trackingUrl: string | null;
    shippedAt: string;
  };
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
};

export type CursorPage<T> = {
  meta: { perPage: number };
  links: { next: string | null; prev: string | null };
  data: T[];
};

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
};

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
