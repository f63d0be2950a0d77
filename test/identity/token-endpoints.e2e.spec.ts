import { createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, postJson, problemOf } from '../support/http.ts';
import { startTestService, type TestService, type TestUser } from '../support/test-service.ts';

let service: TestService;
let customer: TestUser;
beforeAll(async () => {
  service = await startTestService({
    AUTH_RATE_LIMIT_PER_ADDRESS: '1000',
    AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS: '1000',
  });
  customer = await service.addUser(['customer']);
});
afterAll(() => service.stop());

const token = (body: unknown) => postJson(`${service.url}/auth/token`, body);
const refresh = (refreshToken: string) =>
  postJson(`${service.url}/auth/token/refresh`, { refresh_token: refreshToken });
const grant = (user: TestUser) => ({ grant_type: 'password', username: user.email, password: user.password });

/**
 * A refused password or refresh token: 401 problem details with RFC 6749's invalid_grant, and a challenge
 * without error="invalid_token" (no access token was presented).
 */
const expectUnauthorized = async (response: Response) => {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer realm="order-service"');
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(await problemOf(response)).toMatchObject({
    type: 'https://orders.example/problems/unauthorized',
    status: 401,
    error: 'invalid_grant',
    error_description: expect.stringMatching(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/),
  });
};

/** A 400 of a token endpoint: validation-failed problem details carrying RFC 6749's error code. */
const expectBadRequest = async (response: Response, error: string, fields: string[]) => {
  expect(response.status).toBe(400);
  const problem = await problemOf(response);
  expect(problem).toMatchObject({
    type: 'https://orders.example/problems/validation-failed',
    status: 400,
    error,
    error_description: expect.stringMatching(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/),
  });
  expect(problem.errors!.map(({ field }) => field)).toEqual(fields);
};

describe('POST /auth/token (password grant)', () => {
  it('answers the token response, never to be cached', async () => {
    const response = await token(grant(customer));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(body['refresh_token']).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('issues an RS256 JWT with a kid, valid one hour, that the published JWKS verifies', async () => {
    const { access_token } = (await (await token(grant(customer))).json()) as { access_token: string };
    const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as {
      keys: Record<string, string>[];
    };
    const decoded = jwt.decode(access_token, { complete: true })!;
    expect(decoded.header).toMatchObject({ alg: 'RS256', typ: 'JWT', kid: jwks.keys[0]!['kid'] });
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');

    const publicKey = createPublicKey({ key: jwks.keys[0]!, format: 'jwk' });
    const claims = jwt.verify(access_token, publicKey, {
      algorithms: ['RS256'],
      clockTimestamp: Math.floor(service.clock.now().getTime() / 1000),
    }) as jwt.JwtPayload;
    expect(claims).toMatchObject({
      sub: customer.id,
      roles: ['customer'],
      iss: 'https://orders.example',
      aud: 'order-service',
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes form-encoded bodies too', async () => {
    const response = await postForm(`${service.url}/auth/token`, grant(customer));
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as {
      access_token: string;
      token_type: string;
      refresh_token: string;
    };
    expect(tokens).toMatchObject({
      token_type: 'Bearer',
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    // The token it gives is one the API takes.
    const me = await fetch(`${service.url}/users/me`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(me.status).toBe(200);
  });

  it('answers a wrong password and an unknown user alike: 401 invalid_grant with a Bearer challenge', async () => {
    await expectUnauthorized(await token({ ...grant(customer), password: 'wrong' }));
    await expectUnauthorized(await token({ ...grant(customer), username: 'nobody@shop.example' }));
  });

  it('does not let a disabled user log in', async () => {
    const user = await service.addUser(['customer']);
    await service.users.setDisabled(user.id, true);
    await expectUnauthorized(await token(grant(user)));
  });
});

describe('bad input to the token endpoints: 4xx problem details, never 500', () => {
  it.each([
    [
      'malformed JSON',
      '{"grant_type": "password",',
      [{ field: 'body', message: 'malformed JSON, or not an object or array' }],
    ],
    ['missing fields', {}, ['grant_type']],
    ['a password grant without its fields', { grant_type: 'password' }, ['username', 'password']],
    [
      'an unknown grant type',
      { grant_type: 'client_credentials', username: 'a', password: 'b' },
      ['grant_type'],
    ],
    ['wrong types', { grant_type: 'password', username: 42, password: ['x'] }, ['username', 'password']],
    [
      'absurdly long strings',
      { grant_type: 'password', username: 'u'.repeat(10_000), password: 'p' },
      ['username'],
    ],
  ])('%s: 400 validation-failed naming each field', async (_case, body, fields) => {
    const response = await token(body);
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem).toMatchObject({
      type: 'https://orders.example/problems/validation-failed',
      title: 'Bad Request',
      status: 400,
      instance: '/auth/token',
      error:
        (body as { grant_type?: string }).grant_type === 'client_credentials'
          ? 'unsupported_grant_type'
          : 'invalid_request',
    });
    const expected = (fields as unknown[]).map((field) => (typeof field === 'string' ? { field } : field));
    expect(problem.errors).toEqual(expected.map((field) => expect.objectContaining(field)));
  });

  it('415 for a body that is neither JSON nor a form', async () => {
    const response = await fetch(`${service.url}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'grant_type=password',
    });
    expect(response.status).toBe(415);
    expect(await problemOf(response)).toMatchObject({
      type: 'https://orders.example/problems/unsupported-media-type',
    });
  });

  it('413 for a body over 100 kB', async () => {
    const response = await token({ grant_type: 'password', username: 'u', password: 'p'.repeat(200_000) });
    expect(response.status).toBe(413);
    expect(await problemOf(response)).toMatchObject({
      type: 'https://orders.example/problems/payload-too-large',
    });
  });

  it('never shows a stack trace or an internal message', async () => {
    const response = await token('{"grant_type": "password", "username": "\\ud800"');
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text).not.toMatch(/at .*\.ts:\d+|SyntaxError|node_modules/);
  });
});

describe('POST /auth/token/refresh', () => {
  it('rotates: the answer carries a new refresh token, and the access token works', async () => {
    const first = await service.login(customer);
    const response = await refresh(first.refresh_token);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const second = (await response.json()) as { access_token: string; refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const me = await fetch(`${service.url}/users/me`, {
      headers: { Authorization: `Bearer ${second.access_token}` },
    });
    expect(me.status).toBe(200);
  });

  it('treats a reused refresh token as theft: 401, and the whole family is revoked', async () => {
    const first = await service.login(customer);
    const second = (await (await refresh(first.refresh_token)).json()) as { refresh_token: string };

    await expectUnauthorized(await refresh(first.refresh_token));
    // The legitimate holder's newer token dies with the family.
    await expectUnauthorized(await refresh(second.refresh_token));
    // Another session of the same user is untouched.
    const other = await service.login(customer);
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });

  it('refuses a token of a user disabled since', async () => {
    const user = await service.addUser(['customer']);
    const tokens = await service.login(user);
    await service.users.setDisabled(user.id, true);
    await expectUnauthorized(await refresh(tokens.refresh_token));
  });

  it('refuses an unknown token and a token unused for 30 days', async () => {
    await expectUnauthorized(await refresh('not-a-token-we-issued'));
    const tokens = await service.login(customer);
    await service.clock.advance(30 * 24 * 3600 * 1000 + 1000);
    await expectUnauthorized(await refresh(tokens.refresh_token));
  });

  it('answers 400 invalid_request for a missing refresh_token', async () => {
    const response = await postJson(`${service.url}/auth/token/refresh`, { token: 'x' });
    await expectBadRequest(response, 'invalid_request', ['refresh_token']);
  });
});

/**
 * What standard OAuth 2 clients send (RFC 6749): form bodies with client_id (every client is public) and
 * parameters the service does not know, which it ignores; empty values count as omitted.
 */
describe('the token endpoints as standard OAuth 2 clients call them', () => {
  const form = (path: string, fields: Record<string, string>) => postForm(`${service.url}${path}`, fields);
  const tokensOf = async (response: Response) => {
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    return (await response.json()) as { access_token: string; refresh_token: string };
  };

  it('signs in with client_id, an empty scope and resource, which are ignored', async () => {
    const response = await form('/auth/token', {
      ...grant(customer),
      client_id: 'demo',
      scope: '',
      resource: 'https://orders.example/',
    });
    const tokens = await tokensOf(response);
    const me = await fetch(`${service.url}/users/me`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: customer.id, email: customer.email });
  });

  it('refreshes at POST /auth/token with grant_type=refresh_token: the pair rotates, the old token is spent', async () => {
    const first = await service.login(customer);
    const second = await tokensOf(
      await form('/auth/token', {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: 'demo',
        scope: '',
      }),
    );
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const me = await fetch(`${service.url}/users/me`, {
      headers: { Authorization: `Bearer ${second.access_token}` },
    });
    expect(me.status).toBe(200);
    // Reuse detection as at /auth/token/refresh: the spent token is refused, and its family with it.
    await expectUnauthorized(
      await form('/auth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token }),
    );
    await expectUnauthorized(await refresh(second.refresh_token));
  });

  it('refreshes at POST /auth/token/refresh with grant_type=refresh_token and client_id', async () => {
    const first = await service.login(customer);
    const second = await tokensOf(
      await form('/auth/token/refresh', {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: 'demo',
      }),
    );
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const me = await fetch(`${service.url}/users/me`, {
      headers: { Authorization: `Bearer ${second.access_token}` },
    });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: customer.id });
  });

  it('answers a bad refresh token at POST /auth/token with 401 invalid_grant', async () => {
    await expectUnauthorized(
      await form('/auth/token', { grant_type: 'refresh_token', refresh_token: 'not-a-token-we-issued' }),
    );
  });

  it('takes an empty value for omitted: 400 invalid_request naming the field', async () => {
    await expectBadRequest(
      await form('/auth/token', { grant_type: 'password', username: customer.email, password: '' }),
      'invalid_request',
      ['password'],
    );
    await expectBadRequest(
      await form('/auth/token/refresh', {
        grant_type: 'refresh_token',
        refresh_token: '',
        client_id: 'demo',
      }),
      'invalid_request',
      ['refresh_token'],
    );
  });

  it('answers a grant type an endpoint does not take with 400 unsupported_grant_type', async () => {
    await expectBadRequest(
      await form('/auth/token', { grant_type: 'client_credentials', client_id: 'demo' }),
      'unsupported_grant_type',
      ['grant_type'],
    );
    await expectBadRequest(
      await form('/auth/token/refresh', { ...grant(customer) }),
      'unsupported_grant_type',
      ['grant_type'],
    );
  });

  it('answers a body that does not parse with 400 invalid_request', async () => {
    await expectBadRequest(await token('{"grant_type": "password",'), 'invalid_request', ['body']);
    await expectBadRequest(
      await postJson(`${service.url}/auth/token/refresh`, '{"refresh_token": '),
      'invalid_request',
      ['body'],
    );
  });
});
