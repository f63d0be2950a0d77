/**
 * Which roles may do what the console offers, and how far (`any` order, or only the caller's `own`):
 * the rows of the service's permission table (domain/identity/permissions.ts) for the operations the console
 * uses, so that it shows a button only to whom the API would let press it. The API still decides: a
 * test keeps these rows equal to the service's.
 *
 * @typedef {import('../types.js').Role} Role
 * @typedef {'own' | 'any'} Scope
 */

/** @type {Record<string, Partial<Record<Role, Scope>>>} */
export const consolePermissions = {
  listOrders: { customer: 'own', staff: 'any', auditor: 'any', admin: 'any' },
  getOrder: { customer: 'own', staff: 'any', auditor: 'any', admin: 'any' },
  getOrderAtRevision: { staff: 'any', auditor: 'any', admin: 'any' },
  getOrderEvents: { customer: 'own', staff: 'any', auditor: 'any', admin: 'any' },
  confirmOrder: { staff: 'any', admin: 'any' },
  shipOrder: { staff: 'any', admin: 'any' },
  deliverOrder: { staff: 'any', admin: 'any' },
  cancelOrder: { customer: 'own', staff: 'any', admin: 'any' },
  recordPayment: { staff: 'any', admin: 'any' },
  listAuditEvents: { auditor: 'any', admin: 'any' },
  registerWebhook: { admin: 'any' },
  listWebhooks: { admin: 'any' },
  changeWebhook: { admin: 'any' },
  removeWebhook: { admin: 'any' },
  getWebhook: { admin: 'any' },
  rotateWebhookSecret: { admin: 'any' },
  testWebhook: { admin: 'any' },
  listWebhookDeliveries: { admin: 'any' },
  listPendingWebhookDeliveries: { admin: 'any' },
  retryWebhookDelivery: { admin: 'any' },
};

/**
 * The widest reach the roles give for an operation, or null when none may do it.
 *
 * @param {readonly string[]} roles
 * @param {keyof typeof consolePermissions} operation
 * @returns {Scope | null}
 */
export const scopeOf = (roles, operation) => {
  const grants = consolePermissions[operation] ?? {};
  /** @type {Scope | null} */
  let scope = null;
  for (const role of roles) {
    const granted = grants[/** @type {Role} */ (role)];
    if (granted === 'any') return 'any';
    if (granted === 'own') scope = 'own';
  }
  return scope;
};

/**
 * Whether the roles may do an operation on a resource of `ownerId` (or on any, without one).
 *
 * @param {{ id: string, roles: readonly string[] }} user
 * @param {keyof typeof consolePermissions} operation
 * @param {string} [ownerId]
 */
export const may = (user, operation, ownerId) => {
  const scope = scopeOf(user.roles, operation);
  return scope === 'any' || (scope === 'own' && (ownerId === undefined || ownerId === user.id));
};
