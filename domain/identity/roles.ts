export const roles = ['customer', 'staff', 'auditor', 'admin'] as const;
export type Role = (typeof roles)[number];

export const isRole = (value: string): value is Role => (roles as readonly string[]).includes(value);

/** The roles that work the shop rather than shop in it: their holders have write limits of their own. */
export const staffRoles: readonly Role[] = ['staff', 'admin'];
