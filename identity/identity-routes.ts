import type { Response, Router } from 'express';
import { createRouter } from '../infrastructure/http/router.ts';
import { z } from 'zod';
import { acceptBody } from '../infrastructure/http/accept-body.ts';
import { jsonRepresentation, sendRepresentation } from '../infrastructure/http/representation.ts';
import { parseInput } from '../infrastructure/http/validation.ts';
import type { LoginRateLimiter } from './login-rate-limiter.ts';
import { publicJwk, type SigningKey } from './signing-keys.ts';
import type { TokenResponse, TokenService } from './token-service.ts';

export const passwordGrant = z.strictObject({
  grant_type: z.literal('password', { error: 'must be "password"' }),
  username: z.string().min(1, 'must not be empty').max(254, 'must be at most 254 characters'),
  password: z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters'),
});

export const refreshGrant = z.strictObject({
  refresh_token: z.string().min(1, 'must not be empty').max(512, 'must be at most 512 characters'),
});

/** Token responses are never stored by anyone (spec 5.6); Pragma for HTTP/1.0 caches. */
const sendTokens = (response: Response, tokens: TokenResponse) => {
  response.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(tokens);
};

/** POST /auth/token, POST /auth/token/refresh and the public keys that verify the tokens. */
export const identityRoutes = ({
  tokens,
  limiter,
  signingKey,
}: {
  tokens: TokenService;
  limiter: LoginRateLimiter;
  signingKey: SigningKey;
}): Router => {
  const router = createRouter();

  router.post('/auth/token', acceptBody('json', 'form'), async (request, response) => {
    const client = request.ip ?? 'unknown';
    await limiter.address(client);
    const { username, password } = parseInput(passwordGrant, request.body);
    await limiter.username(username, client);
    sendTokens(response, await tokens.passwordGrant(username, password));
  });

  router.post('/auth/token/refresh', acceptBody('json', 'form'), async (request, response) => {
    await limiter.address(request.ip ?? 'unknown');
    const { refresh_token } = parseInput(refreshGrant, request.body);
    sendTokens(response, await tokens.refresh(refresh_token));
  });

  const jwks = jsonRepresentation({ keys: [publicJwk(signingKey)] }, { cacheControl: 'public, max-age=300' });
  router.get('/.well-known/jwks.json', (request, response) => {
    sendRepresentation(request, response, jwks);
  });

  return router;
};
