import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import type { Clock } from '../infrastructure/clock.ts';
import { UnauthorizedError } from '../infrastructure/http/api-error.ts';
import { roles, type Role } from './roles.ts';
import { signingAlgorithm, type SigningKey } from './signing-keys.ts';

export const accessTokenLifetimeSeconds = 3600;

/** Who is calling, as the access token says. */
export type Principal = { userId: string; roles: Role[]; tokenId: string };

export type TokenAudience = { issuer: string; audience: string };

export const createAccessTokenIssuer = ({
  signingKey,
  issuer,
  audience,
  clock,
  newId,
}: TokenAudience & { signingKey: SigningKey; clock: Clock; newId: () => string }) => ({
  issue(user: { id: string; roles: Role[] }): string {
    const iat = Math.floor(clock.now().getTime() / 1000);
    return jwt.sign(
      { sub: user.id, roles: user.roles, iat, exp: iat + accessTokenLifetimeSeconds, jti: newId() },
      signingKey.privateKey,
      { algorithm: signingAlgorithm, keyid: signingKey.kid, issuer, audience },
    );
  },
});

const claimsSchema = z.object({
  sub: z.string().min(1),
  roles: z.array(z.enum(roles)),
  jti: z.string().min(1),
});

/**
 * Verifies an access token with nothing but public keys: only RS256 (never `none`, never HMAC with a public
 * key), a known kid, the issuer, the audience and expiry, at the injected clock's time.
 */
export const createAccessTokenVerifier = ({
  publicKeyFor,
  issuer,
  audience,
  clock,
}: TokenAudience & { publicKeyFor: (kid: string) => KeyObject | undefined; clock: Clock }) => ({
  verify(token: string): Principal {
    const invalid = (detail: string) => new UnauthorizedError(detail, { invalidToken: true });
    const decoded = jwt.decode(token, { complete: true });
    const kid = decoded?.header.kid;
    const key = kid === undefined ? undefined : publicKeyFor(kid);
    if (!decoded || decoded.header.alg !== signingAlgorithm || !key)
      throw invalid('The access token is invalid.');
    let payload: unknown;
    try {
      payload = jwt.verify(token, key, {
        algorithms: [signingAlgorithm],
        issuer,
        audience,
        clockTimestamp: Math.floor(clock.now().getTime() / 1000),
      });
    } catch (error) {
      if (error instanceof jwt.TokenExpiredError) throw invalid('The access token has expired.');
      throw invalid('The access token is invalid.');
    }
    const claims = claimsSchema.safeParse(payload);
    if (!claims.success) throw invalid('The access token is invalid.');
    return { userId: claims.data.sub, roles: claims.data.roles, tokenId: claims.data.jti };
  },
});

export type AccessTokenVerifier = ReturnType<typeof createAccessTokenVerifier>;
export type AccessTokenIssuer = ReturnType<typeof createAccessTokenIssuer>;
