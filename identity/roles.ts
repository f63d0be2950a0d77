export const roles = ['customer', 'staff', 'auditor', 'admin'] as const;
export type Role = (typeof roles)[number];

export const isRole = (value: string): value is Role => (roles as readonly string[]).includes(value);

/** Staff, auditors and admins read every order; customers only their own (decisions.md, roles table). */
export const readsEveryOrder = (held: readonly Role[]): boolean =>
  held.some((role) => role === 'staff' || role === 'auditor' || role === 'admin');
