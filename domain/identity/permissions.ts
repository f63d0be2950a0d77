import { isRole, roles, type Role } from './roles.ts';

/**
 * How far a role's permission for an operation reaches: `any` resource, or only the caller's `own` (its own
 * orders, its own account; for placing an order, an order of its own).
 */
export type Scope = 'own' | 'any';

type Grants = Partial<Record<Role, Scope>>;

const customerOwnStaffAny = { customer: 'own', staff: 'any', admin: 'any' } as const satisfies Grants;
const readersOfOrders = { ...customerOwnStaffAny, auditor: 'any' } as const satisfies Grants;
const staffOnly = { staff: 'any', admin: 'any' } as const satisfies Grants;
const everySignedIn = {
  customer: 'own',
  staff: 'own',
  auditor: 'own',
  admin: 'own',
} as const satisfies Grants;
const shoppers = { customer: 'own', staff: 'own', admin: 'own' } as const satisfies Grants;
const adminOnly = { admin: 'any' } as const satisfies Grants;

/**
 * Who may do what: every operation that needs a bearer token, keyed by its operationId in the OpenAPI
 * document, with the roles that may call it and each role's reach. A user holding several roles may do
 * what any one of them may, each with that role's own reach: a customer who is also an auditor reads every
 * order but cancels only its own. Routes ask this table (`authorize`), the OpenAPI document describes it,
 * and the authorization matrix test checks it over HTTP. Another customer's order answers 404, never 403.
 */
export const permissions = {
  placeOrder: shoppers,
  listOrders: readersOfOrders,
  getOrder: readersOfOrders,
  /** `GET /orders/{id}?revision=N`: the state after a past event. */
  getOrderAtRevision: { staff: 'any', auditor: 'any', admin: 'any' },
  getOrderEvents: readersOfOrders,
  confirmOrder: staffOnly,
  shipOrder: staffOnly,
  deliverOrder: staffOnly,
  cancelOrder: customerOwnStaffAny,
  recordPayment: staffOnly,
  listAuditEvents: { auditor: 'any', admin: 'any' },
  getCurrentUser: everySignedIn,
  listSessions: everySignedIn,
  endSession: everySignedIn,
  endAllSessions: everySignedIn,
  listAddresses: shoppers,
  getAddress: shoppers,
  addAddress: shoppers,
  removeAddress: shoppers,
  registerWebhook: adminOnly,
  listWebhooks: adminOnly,
  getWebhook: adminOnly,
  changeWebhook: adminOnly,
  removeWebhook: adminOnly,
  rotateWebhookSecret: adminOnly,
  testWebhook: adminOnly,
  listWebhookDeliveries: adminOnly,
  listPendingWebhookDeliveries: adminOnly,
  retryWebhookDelivery: adminOnly,
  eraseUser: adminOnly,
} as const satisfies Record<string, Grants>;

export type Operation = keyof typeof permissions;

export const operations = Object.keys(permissions) as Operation[];

/** The widest reach any of `held` gives for `operation`, or null when none of them may do it. */
export const scopeOf = (held: readonly string[], operation: Operation): Scope | null => {
  const grants: Grants = permissions[operation];
  let scope: Scope | null = null;
  for (const role of held) {
    const granted = isRole(role) ? grants[role] : undefined;
    if (granted === 'any') return 'any';
    if (granted === 'own') scope = 'own';
  }
  return scope;
};

/** The table's row for the OpenAPI document: "`customer` (own only), `staff`, `admin`". */
export const accessDescription = (operation: Operation): string => {
  const grants: Grants = permissions[operation];
  return roles
    .filter((role) => grants[role] !== undefined)
    .map((role) => (grants[role] === 'own' ? `\`${role}\` (own only)` : `\`${role}\``))
    .join(', ');
};
