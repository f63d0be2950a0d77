import type { RequestHandler, Response } from 'express';
import { forbidden, UnauthorizedError } from '../infrastructure/http/api-error.ts';
import type { AccessTokenVerifier, Principal } from './access-tokens.ts';
import type { Role } from './roles.ts';

const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The one authentication middleware of every service: a valid bearer token puts its principal on the
 * response's locals; anything else is a 401 (with error="invalid_token" unless no credentials were sent).
 */
export const authenticate =
  (verifier: AccessTokenVerifier): RequestHandler =>
  (request, response, next) => {
    const header = request.get('Authorization');
    if (header === undefined || header.trim() === '') {
      throw new UnauthorizedError('This operation needs a bearer token.', { invalidToken: false });
    }
    const token = bearer.exec(header)?.[1];
    if (!token)
      throw new UnauthorizedError('The Authorization header is not a bearer token.', { invalidToken: true });
    response.locals['principal'] = verifier.verify(token);
    next();
  };

/** 403 unless the caller has one of the roles. Goes after authenticate. */
export const requireRole =
  (...allowed: Role[]): RequestHandler =>
  (_request, response, next) => {
    if (!principalOf(response).roles.some((role) => allowed.includes(role))) throw forbidden();
    next();
  };

export const principalOf = (response: Response): Principal => {
  const principal = response.locals['principal'] as Principal | undefined;
  if (!principal) throw new Error('principalOf called on a route without authenticate');
  return principal;
};
