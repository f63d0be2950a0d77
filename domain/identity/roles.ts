export const roles = ['customer', 'staff', 'auditor', 'admin'] as const;
export type Role = (typeof roles)[number];

export const isRole = (value: string): value is Role => (roles as readonly string[]).includes(value);
