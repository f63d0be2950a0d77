import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { UnauthorizedError } from '../http/api-error.ts';
import { signingAlgorithm, type SigningKey } from './signing-keys.ts';

export const accessTokenLifetimeSeconds = 3600;

/** Who is calling, as the access token says. */
export type Principal = {
  userId: string;
  /** The role names the token was issued with (those its user still holds, once authenticated). */
  roles: readonly string[];
  /** The token's `jti`. */
  tokenId: string;
  /** The session (refresh-token family) the token was issued in; null for tokens issued before sessions. */
  sessionId: string | null;
  /** The token's `iat`, in seconds. */
  issuedAt: number;
  /** The token's `exp`, in seconds. */
  expiresAt: number;
};

export type TokenAudience = { issuer: string; audience: string };

export const createAccessTokenIssuer = ({
  signingKey,
  issuer,
  audience,
  clock,
  newId,
}: TokenAudience & { signingKey: SigningKey; clock: Clock; newId: () => string }) => ({
  /** An access token of the user, in the session `sessionId` (its `sid` claim). */
  issue(user: { id: string; roles: readonly string[] }, sessionId: string): string {
    const iat = Math.floor(clock.now().getTime() / 1000);
    return jwt.sign(
      {
        sub: user.id,
        roles: user.roles,
        sid: sessionId,
        iat,
        exp: iat + accessTokenLifetimeSeconds,
        jti: newId(),
      },
      signingKey.privateKey,
      { algorithm: signingAlgorithm, keyid: signingKey.kid, issuer, audience },
    );
  },
});

/** The claims of an access token, its roles among those the service knows. */
const claimsSchemaOf = (roles: readonly [string, ...string[]]) =>
  z.object({
    sub: z.string().min(1),
    roles: z.array(z.enum(roles)),
    jti: z.string().min(1),
    sid: z.string().min(1).optional(),
    iat: z.number().int(),
    exp: z.number().int(),
  });

/** How far ahead of this process's clock a token's `iat` may be: clocks of issuers drift, a little. */
export const maxClockSkewSeconds = 60;

/**
 * Verifies an access token with nothing but public keys: only RS256 (never `none`, never HMAC with a public
 * key), a known kid, the issuer, the audience and expiry, at the injected clock's time.
 */
export const createAccessTokenVerifier = ({
  publicKeyFor,
  issuer,
  audience,
  clock,
  roles,
  cacheSize = 10_000,
}: TokenAudience & {
  publicKeyFor: (kid: string) => KeyObject | undefined;
  /** The roles the service knows: a token naming another is invalid. */
  roles: readonly [string, ...string[]];
  clock: Clock;
  /** Tokens verified already, kept with their expiry: a client sends the same one for an hour. */
  cacheSize?: number;
}) => {
  const invalid = (detail: string) => new UnauthorizedError(detail, { invalidToken: true });
  const claimsSchema = claimsSchemaOf(roles);
  // Keyed by the whole token, signature included, so only the very bytes that verified can hit. Only
  // expiry changes with time, and it is checked on every hit. Oldest entries go first when full.
  const verified = new Map<string, { principal: Principal; expiresAtMs: number }>();
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

  const verifySignatureAndClaims = (token: string, { ignoreExpiration = false } = {}) => {
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
        clockTimestamp: nowSeconds(),
        ignoreExpiration,
      });
    } catch (error) {
      if (error instanceof jwt.TokenExpiredError) throw invalid('The access token has expired.');
      throw invalid('The access token is invalid.');
    }
    const claims = claimsSchema.safeParse(payload);
    if (!claims.success) throw invalid('The access token is invalid.');
    const { iat, exp } = claims.data;
    // A key that signs tokens living longer, or issued in the future, is not used as this service uses it.
    if (exp - iat > accessTokenLifetimeSeconds || iat > nowSeconds() + maxClockSkewSeconds)
      throw invalid('The access token is invalid.');
    const principal: Principal = {
      userId: claims.data.sub,
      roles: claims.data.roles,
      tokenId: claims.data.jti,
      sessionId: claims.data.sid ?? null,
      issuedAt: iat,
      expiresAt: exp,
    };
    return { principal, expiresAtMs: exp * 1000 };
  };

  return {
    verify(token: string): Principal {
      const known = verified.get(token);
      if (known) {
        if (clock.now().getTime() < known.expiresAtMs) return known.principal;
        verified.delete(token);
        throw invalid('The access token has expired.');
      }
      const fresh = verifySignatureAndClaims(token);
      if (verified.size >= cacheSize) verified.delete(verified.keys().next().value!);
      verified.set(token, fresh);
      return fresh.principal;
    },
    /**
     * The claims of a token this service issued, expired or not (what revoking it needs); null for anything
     * else: a token of another issuer, another key, or no token at all.
     */
    identify(token: string): Principal | null {
      try {
        return verifySignatureAndClaims(token, { ignoreExpiration: true }).principal;
      } catch (error) {
        if (error instanceof UnauthorizedError) return null;
        throw error;
      }
    },
  };
};

export type AccessTokenVerifier = ReturnType<typeof createAccessTokenVerifier>;
export type AccessTokenIssuer = ReturnType<typeof createAccessTokenIssuer>;
