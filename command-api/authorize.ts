import { scopeOf } from '../domain/identity/permissions.ts';
import { authorizeBy } from '../infrastructure/auth/authenticate.ts';

/** 403 unless one of the caller's roles may do the operation, as the permission table says. */
export const authorize = authorizeBy(scopeOf);
