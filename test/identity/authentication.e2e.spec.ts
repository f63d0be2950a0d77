import { createHmac, createPublicKey, generateKeyPairSync, type webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from 'express';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessTokenVerifier } from '../../infrastructure/auth/access-tokens.ts';
import { authorize } from '../../command-api/authorize.ts';
import { roles } from '../../domain/identity/roles.ts';
import { authenticate } from '../../infrastructure/auth/authenticate.ts';
import { createAuthenticator } from '../../infrastructure/auth/authenticator.ts';
import { signingKeyFromPem } from '../../infrastructure/auth/signing-keys.ts';
import type { Listening } from '../../infrastructure/http/listen.ts';
import { postJson, problemOf } from '../support/http.ts';
import { startTestApp } from '../support/test-app.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let customer: Awaited<ReturnType<TestService['signIn']>>;
beforeAll(async () => {
  service = await startTestService();
  customer = await service.signIn(['customer']);
});
afterAll(() => service.stop());

const me = (authorization?: string) =>
  fetch(
    `${service.url}/users/me`,
    authorization === undefined ? {} : { headers: { Authorization: authorization } },
  );

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** The decoded header and claims of the customer's real token, to forge variants of. */
const header = (): [Record<string, unknown>, Record<string, unknown>] => {
  const [h, p] = customer.tokens.access_token.split('.') as [string, string];
  return [
    JSON.parse(Buffer.from(h, 'base64url').toString()),
    JSON.parse(Buffer.from(p, 'base64url').toString()),
  ];
};
const ourSigningKey = () =>
  signingKeyFromPem(readFileSync(join(service.dataDir, 'keys', 'jwt-signing-key.pem'), 'utf8'));
const now = () => Math.floor(service.clock.now().getTime() / 1000);

const expectInvalidToken = async (response: Response) => {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe(
    'Bearer realm="order-service", error="invalid_token"',
  );
  expect(await problemOf(response)).toMatchObject({ type: 'https://orders.example/problems/unauthorized' });
};

describe('authentication (every protected route)', () => {
  it('accepts the token it issued: the caller is the user it was issued to', async () => {
    const response = await me(customer.auth.Authorization);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: customer.id,
      email: customer.email,
      roles: ['customer'],
    });
  });

  it('asks for credentials without an error attribute when none were sent (RFC 6750, 3.1)', async () => {
    const response = await me();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="order-service"');
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    expect(await problemOf(response)).toMatchObject({ status: 401, title: 'Unauthorized' });
  });

  it('refuses another authentication scheme, asking for a bearer token without an error attribute (RFC 6750, 3.1)', async () => {
    const response = await me(`Basic ${Buffer.from('a:b').toString('base64')}`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="order-service"');
  });

  it('refuses a malformed bearer token as an invalid one', async () => {
    await expectInvalidToken(await me('Bearer !!!'));
  });

  it('refuses an unsigned token (alg none)', async () => {
    const [h, p] = header();
    await expectInvalidToken(await me(`Bearer ${base64url({ ...h, alg: 'none' })}.${base64url(p)}.`));
  });

  it('refuses a token signed by another key, even under our kid', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const [h, p] = header();
    const forged = jwt.sign(p, privateKey, { algorithm: 'RS256', keyid: h['kid'] as string });
    await expectInvalidToken(await me(`Bearer ${forged}`));
  });

  it('refuses an HS256 token keyed with our public key (algorithm confusion)', async () => {
    const [h, p] = header();
    const publicPem = createPublicKey(ourSigningKey().privateKey).export({ format: 'pem', type: 'spki' });
    const unsigned = `${base64url({ ...h, alg: 'HS256' })}.${base64url(p)}`;
    const signature = createHmac('sha256', publicPem).update(unsigned).digest('base64url');
    await expectInvalidToken(await me(`Bearer ${unsigned}.${signature}`));
  });

  it('refuses a payload edited after signing', async () => {
    const [h, p, signature] = customer.tokens.access_token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const elevated = base64url({ ...claims, roles: ['admin'] });
    await expectInvalidToken(await me(`Bearer ${h}.${elevated}.${signature}`));
  });

  it('refuses a token of another issuer or audience, though signed with our key', async () => {
    const key = ourSigningKey();
    const claims = { sub: customer.id, roles: ['customer'], jti: 'x', iat: now(), exp: now() + 600 };
    const sign = (options: jwt.SignOptions) =>
      jwt.sign(claims, key.privateKey, { algorithm: 'RS256', keyid: key.kid, ...options });
    await expectInvalidToken(
      await me(`Bearer ${sign({ issuer: 'https://evil.example', audience: 'order-service' })}`),
    );
    await expectInvalidToken(
      await me(`Bearer ${sign({ issuer: 'https://orders.example', audience: 'other-api' })}`),
    );
    // and the same token with the right issuer and audience passes: the two refusals above are about them
    expect(
      (await me(`Bearer ${sign({ issuer: 'https://orders.example', audience: 'order-service' })}`)).status,
    ).toBe(200);
  });

  it('refuses a token with a role it does not know', async () => {
    const key = ourSigningKey();
    const forged = jwt.sign(
      { sub: customer.id, roles: ['superuser'], jti: 'x', iat: now(), exp: now() + 600 },
      key.privateKey,
      { algorithm: 'RS256', keyid: key.kid, issuer: 'https://orders.example', audience: 'order-service' },
    );
    await expectInvalidToken(await me(`Bearer ${forged}`));
  });

  describe('tokens signed with our own key whose claims this service never issues', () => {
    const signed = (claims: Record<string, unknown>, options: jwt.SignOptions = {}) => {
      const key = ourSigningKey();
      return `Bearer ${jwt.sign(
        { sub: customer.id, roles: ['customer'], jti: 'x', ...claims },
        key.privateKey,
        {
          algorithm: 'RS256',
          keyid: key.kid,
          issuer: 'https://orders.example',
          audience: 'order-service',
          ...options,
        },
      )}`;
    };

    it('refuses a token whose sub names no user', async () => {
      const response = await me(signed({ sub: 'no-such-user', iat: now(), exp: now() + 600 }));
      await expectInvalidToken(response);
    });

    it('refuses a token that lives longer than 3600 s', async () => {
      await expectInvalidToken(await me(signed({ iat: now(), exp: now() + 3601 })));
      expect((await me(signed({ iat: now(), exp: now() + 3600 }))).status).toBe(200);
    });

    it('refuses a token issued more than 60 s in the future, and takes one 30 s ahead (clock skew)', async () => {
      await expectInvalidToken(await me(signed({ iat: now() + 61, exp: now() + 600 })));
      expect((await me(signed({ iat: now() + 30, exp: now() + 600 }))).status).toBe(200);
    });

    it('refuses a token without iat', async () => {
      await expectInvalidToken(await me(signed({ exp: now() + 600 }, { noTimestamp: true })));
    });
  });

  it('refuses an expired token', async () => {
    const user = await service.signIn(['customer']);
    await service.clock.advance(3601 * 1000);
    const response = await me(user.auth.Authorization);
    await expectInvalidToken(response);
  });

  it('refuses a token it accepted before, once it has expired (verified tokens are kept, not trusted forever)', async () => {
    const user = await service.signIn(['customer']);
    expect((await me(user.auth.Authorization)).status).toBe(200);
    await service.clock.advance(3599 * 1000);
    expect((await me(user.auth.Authorization)).status).toBe(200);
    await service.clock.advance(1000);
    const response = await me(user.auth.Authorization);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="order-service", error="invalid_token"',
    );
    expect(await problemOf(response)).toMatchObject({ status: 401, detail: 'The access token has expired.' });
  });
});

describe('authorisation by role', () => {
  it('403 for an auditor managing addresses (only customers, staff and admins may)', async () => {
    const auditor = await service.signIn(['auditor']);
    const response = await postJson(
      `${service.url}/users/me/addresses`,
      { street: '1 Main St', city: 'Lyon', postalCode: '69001', country: 'FR' },
      auditor.auth,
    );
    expect(response.status).toBe(403);
    expect(await problemOf(response)).toMatchObject({
      type: 'https://orders.example/problems/forbidden',
      title: 'Forbidden',
      status: 403,
    });
  });

  describe('a staff operation behind the shared middleware', () => {
    let staffOnly: Listening;
    beforeAll(async () => {
      const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as {
        keys: (webcrypto.JsonWebKey & { kid: string })[];
      };
      // Verifies with nothing but the published public keys and the user store, as a separate service does.
      const verifier = createAccessTokenVerifier({
        issuer: 'https://orders.example',
        audience: 'order-service',
        clock: service.clock,
        roles,
        publicKeyFor: (kid) => {
          const jwk = jwks.keys.find((key) => key.kid === kid);
          return jwk ? createPublicKey({ key: jwk, format: 'jwk' }) : undefined;
        },
      });
      const router = Router();
      const authenticator = createAuthenticator({ verifier, users: service.users, clock: service.clock });
      router.post(
        '/staff-operation',
        authenticate(authenticator),
        authorize('confirmOrder'),
        (_request, response) => {
          response.json({ done: true });
        },
      );
      staffOnly = await startTestApp([router]);
    });
    afterAll(() => staffOnly.close());

    it('403 for a customer, 200 for staff', async () => {
      const fresh = await service.signIn(['customer']);
      const staff = await service.signIn(['staff']);
      const asCustomer = await fetch(`${staffOnly.url}/staff-operation`, {
        method: 'POST',
        headers: fresh.auth,
      });
      expect(asCustomer.status).toBe(403);
      expect(await problemOf(asCustomer)).toMatchObject({
        type: 'https://orders.example/problems/forbidden',
      });
      const asStaff = await fetch(`${staffOnly.url}/staff-operation`, {
        method: 'POST',
        headers: staff.auth,
      });
      expect(asStaff.status).toBe(200);
    });
  });
});
