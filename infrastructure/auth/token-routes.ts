import type { Request, Response, Router } from 'express';
import { createRouter } from '../http/router.ts';
import { z } from 'zod';
import { acceptBody } from '../http/accept-body.ts';
import { jsonRepresentation, sendRepresentation } from '../http/representation.ts';
import { parseInput } from '../http/validation.ts';
import type { LoginRateLimiter } from './login-rate-limiter.ts';
import { unsupportedGrantType } from './oauth-errors.ts';
import type { PasswordChecks } from './password-checks.ts';
import { publicJwk, type SigningKey } from './signing-keys.ts';
import type { TokenClient, TokenResponse, TokenService } from './token-service.ts';

const refreshToken = z.string().min(1, 'must not be empty').max(512, 'must be at most 512 characters');

/**
 * The request bodies of the token endpoints. Parameters they do not know (client_id, scope, resource, …)
 * are ignored, as RFC 6749, section 3.2, says: every client is public, and no scope is granted but the
 * user's roles. A parameter sent empty counts as omitted (withoutEmptyValues).
 */
export const passwordGrant = z
  .object({
    grant_type: z.literal('password'),
    username: z.string().min(1, 'must not be empty').max(254, 'must be at most 254 characters'),
    password: z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters'),
  })
  .meta({
    id: 'PasswordGrant',
    description: 'Sign in (RFC 6749, section 4.3): the user’s e-mail address and password.',
  });

export const refreshTokenGrant = z
  .object({ grant_type: z.literal('refresh_token'), refresh_token: refreshToken })
  .meta({
    id: 'RefreshTokenGrant',
    description: 'Extend a session (RFC 6749, section 6): a refresh token, exchanged once for a new pair.',
  });

/** What grant_type each grant takes, read from its schema. */
const grantTypeOf = (grant: typeof passwordGrant | typeof refreshTokenGrant): string =>
  grant.shape.grant_type.value;
const grantTypes = [passwordGrant, refreshTokenGrant].map(grantTypeOf);

/** POST /auth/token: either grant, told apart by grant_type. */
export const tokenRequest = z
  .discriminatedUnion('grant_type', [passwordGrant, refreshTokenGrant], {
    error: `must be one of ${grantTypes.join(', ')}`,
  })
  .meta({
    id: 'TokenRequest',
    description:
      'A token request of RFC 6749 (form-encoded, as standard clients send it, or JSON). Unknown parameters are ignored; an empty value counts as omitted.',
  });

/** POST /auth/token/refresh: the refresh grant, where grant_type may be left out. */
export const refreshRequest = refreshTokenGrant.partial({ grant_type: true }).meta({
  id: 'RefreshRequest',
  description:
    'The refresh grant; grant_type may be left out. Unknown parameters are ignored; an empty value counts as omitted.',
});

/** RFC 7009, section 2.1. An unknown token_type_hint is ignored, as the RFC says; so are unknown parameters. */
export const revocationRequest = z
  .object({
    token: z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters'),
    token_type_hint: z.string().max(100, 'must be at most 100 characters').optional(),
  })
  .meta({
    id: 'RevocationRequest',
    description:
      'A revocation request of RFC 7009. Unknown parameters (client_id among them) are ignored; an empty value counts as omitted.',
  });

/** RFC 6749, section 3.2: a parameter sent without a value is treated as omitted. */
const withoutEmptyValues = (body: unknown): unknown =>
  typeof body === 'object' && body !== null && !Array.isArray(body)
    ? Object.fromEntries(Object.entries(body).filter(([, value]) => value !== ''))
    : body;

/**
 * A grant request, or a 400: unsupported_grant_type for a grant_type (a single string) this endpoint does
 * not take, invalid_request (added by tokenEndpointProblems) for anything else amiss.
 */
const parseGrant = <Schema extends z.ZodType>(
  schema: Schema,
  accepted: readonly string[],
  body: unknown,
): z.infer<Schema> => {
  const input = withoutEmptyValues(body);
  const grantType = (input as { grant_type?: unknown } | undefined)?.grant_type;
  if (typeof grantType === 'string' && !accepted.includes(grantType)) {
    const expected = `must be ${accepted.length > 1 ? 'one of ' : ''}${accepted.join(', ')}`;
    throw unsupportedGrantType(
      [{ field: 'grant_type', message: expected }],
      `This endpoint does not take the grant type ${grantType.slice(0, 100)}.`,
    );
  }
  return parseInput(schema, input);
};

/** Who asks, for the user's list of sessions: the client address and a bounded user agent. */
const clientOf = (request: Request): TokenClient => ({
  address: request.ip ?? null,
  userAgent: request.get('User-Agent')?.slice(0, 200) ?? null,
});

/** Token responses are never stored by anyone; Pragma for HTTP/1.0 caches. */
const sendTokens = (response: Response, tokens: TokenResponse) => {
  response.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(tokens);
};

/**
 * POST /auth/token (password and refresh grants), POST /auth/token/refresh, POST /auth/revoke and the
 * public keys that verify the tokens. Their problems carry RFC 6749's error members (tokenEndpointProblems).
 */
export const tokenRoutes = ({
  tokens,
  limiter,
  passwordChecks,
  signingKey,
}: {
  tokens: TokenService;
  limiter: LoginRateLimiter;
  passwordChecks: PasswordChecks;
  signingKey: SigningKey;
}): Router => {
  const router = createRouter();

  router.post('/auth/token', acceptBody('json', 'form'), async (request, response) => {
    const client = request.ip ?? 'unknown';
    await limiter.address(client);
    const grant = parseGrant(tokenRequest, grantTypes, request.body);
    if (grant.grant_type === 'refresh_token') {
      sendTokens(response, await tokens.refresh(grant.refresh_token, clientOf(request)));
      return;
    }
    const { username, password } = grant;
    const granted = await limiter.passwordAttempt(username, client, () =>
      passwordChecks.run(client, () => tokens.passwordGrant(username, password, clientOf(request))),
    );
    sendTokens(response, granted);
  });

  router.post('/auth/token/refresh', acceptBody('json', 'form'), async (request, response) => {
    await limiter.address(request.ip ?? 'unknown');
    const { refresh_token } = parseGrant(refreshRequest, [grantTypeOf(refreshTokenGrant)], request.body);
    sendTokens(response, await tokens.refresh(refresh_token, clientOf(request)));
  });

  router.post('/auth/revoke', acceptBody('json', 'form'), async (request, response) => {
    await limiter.address(request.ip ?? 'unknown');
    const { token, token_type_hint } = parseInput(revocationRequest, withoutEmptyValues(request.body));
    await tokens.revoke(token, token_type_hint);
    // The same answer whether or not the token was known (RFC 7009, section 2.2).
    response.status(200).end();
  });

  const jwks = jsonRepresentation({ keys: [publicJwk(signingKey)] }, { cacheControl: 'public, max-age=300' });
  router.get('/.well-known/jwks.json', (request, response) => {
    sendRepresentation(request, response, jwks);
  });

  return router;
};
