import type { Request, Response, Router } from 'express';
import { createRouter } from '../http/router.ts';
import { z } from 'zod';
import { acceptBody } from '../http/accept-body.ts';
import { jsonRepresentation, sendRepresentation } from '../http/representation.ts';
import { parseInput } from '../http/validation.ts';
import type { LoginRateLimiter } from './login-rate-limiter.ts';
import type { PasswordChecks } from './password-checks.ts';
import { publicJwk, type SigningKey } from './signing-keys.ts';
import type { TokenClient, TokenResponse, TokenService } from './token-service.ts';

export const passwordGrant = z.strictObject({
  grant_type: z.literal('password', { error: 'must be "password"' }),
  username: z.string().min(1, 'must not be empty').max(254, 'must be at most 254 characters'),
  password: z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters'),
});

export const refreshGrant = z.strictObject({
  refresh_token: z.string().min(1, 'must not be empty').max(512, 'must be at most 512 characters'),
});

/** RFC 7009, section 2.1. An unknown token_type_hint is ignored, as the RFC says. */
export const revocationRequest = z.strictObject({
  token: z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters'),
  token_type_hint: z.string().max(100, 'must be at most 100 characters').optional(),
});

/** Who asks, for the user's list of sessions: the client address and a bounded user agent. */
const clientOf = (request: Request): TokenClient => ({
  address: request.ip ?? null,
  userAgent: request.get('User-Agent')?.slice(0, 200) ?? null,
});

/** Token responses are never stored by anyone; Pragma for HTTP/1.0 caches. */
const sendTokens = (response: Response, tokens: TokenResponse) => {
  response.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(tokens);
};

/** POST /auth/token, POST /auth/token/refresh and the public keys that verify the tokens. */
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
    const { username, password } = parseInput(passwordGrant, request.body);
    const granted = await limiter.passwordAttempt(username, client, () =>
      passwordChecks.run(client, () => tokens.passwordGrant(username, password, clientOf(request))),
    );
    sendTokens(response, granted);
  });

  router.post('/auth/token/refresh', acceptBody('json', 'form'), async (request, response) => {
    await limiter.address(request.ip ?? 'unknown');
    const { refresh_token } = parseInput(refreshGrant, request.body);
    sendTokens(response, await tokens.refresh(refresh_token, clientOf(request)));
  });

  router.post('/auth/revoke', acceptBody('json', 'form'), async (request, response) => {
    await limiter.address(request.ip ?? 'unknown');
    const { token, token_type_hint } = parseInput(revocationRequest, request.body);
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
