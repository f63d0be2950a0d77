import type { RequestHandler, Response } from 'express';
import { forbidden, UnauthorizedError } from '../http/api-error.ts';
import type { Principal } from './access-tokens.ts';
import type { Authenticator } from './authenticator.ts';

const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The one authentication middleware of every service: a valid bearer token of a user who still exists,
 * is enabled and still holds the token's roles puts its principal on the response's locals; anything else
 * is a 401 (with error="invalid_token" unless no credentials were sent).
 */
export const authenticate =
  (authenticator: Authenticator): RequestHandler =>
  async (request, response, next) => {
    const header = request.get('Authorization');
    if (header === undefined || header.trim() === '') {
      throw new UnauthorizedError('This operation needs a bearer token.', { invalidToken: false });
    }
    const token = bearer.exec(header)?.[1];
    if (!token) {
      // Another scheme (Basic, say) is no bearer credential at all: RFC 6750, 3.1, leaves the error out.
      const anotherScheme = !/^Bearer(\s|$)/i.test(header.trim());
      throw new UnauthorizedError('The Authorization header is not a bearer token.', {
        invalidToken: !anotherScheme,
      });
    }
    response.locals['principal'] = await authenticator.principalFor(token);
    next();
  };

/**
 * How far a permission reaches: `any` resource, or only the caller's `own` (its own orders, its own
 * account; for placing an order, an order of its own).
 */
export type Scope = 'own' | 'any';

/**
 * The authorization middleware over a permission table (domain/identity/permissions.ts): `authorize(op)`
 * answers 403 unless one of the caller's roles may do `op`, and otherwise keeps the widest reach its roles
 * give, for `mayActOn` and `ownOnly`. Goes after authenticate.
 */
export const authorizeBy =
  <Operation extends string>(scopeOf: (roles: readonly string[], operation: Operation) => Scope | null) =>
  (operation: Operation): RequestHandler =>
  (_request, response, next) => {
    const scope = scopeOf(principalOf(response).roles, operation);
    if (scope === null) throw forbidden();
    response.locals['scope'] = scope;
    next();
  };

export const principalOf = (response: Response): Principal => {
  const principal = response.locals['principal'] as Principal | undefined;
  if (!principal) throw new Error('principalOf called on a route without authenticate');
  return principal;
};

const scopeFor = (response: Response): Scope => {
  const scope = response.locals['scope'] as Scope | undefined;
  if (!scope) throw new Error('scope asked on a route without authorize');
  return scope;
};

/** Whether the authorized operation reaches a resource owned by `ownerId`. */
export const mayActOn = (response: Response, ownerId: string): boolean =>
  scopeFor(response) === 'any' || principalOf(response).userId === ownerId;

/** The caller's id when the authorized operation reaches only its own resources (a listing's filter). */
export const ownOnly = (response: Response): string | undefined =>
  scopeFor(response) === 'any' ? undefined : principalOf(response).userId;
