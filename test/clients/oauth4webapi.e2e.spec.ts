import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../support/test-service.ts';

/**
 * A standard OAuth 2 client library, oauth4webapi, against the token endpoints of the real service (on an
 * ephemeral port, over plain HTTP: hence allowInsecureRequests). It is a public client: client_id in the
 * body, no client authentication (oauth.None()). It signs in with the password grant through its generic
 * token endpoint request, refreshes, revokes, and meets the errors as the library reports them.
 * `npm run test:clients`.
 */
let service: TestService;
let user: TestUser;
let as: oauth.AuthorizationServer;
const client: oauth.Client = { client_id: 'demo' };
const clientAuth = oauth.None();
const insecure = { [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  service = await startTestService({
    AUTH_RATE_LIMIT_PER_ADDRESS: '1000',
    AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS: '1000',
  });
  user = await service.addUser(['customer']);
  as = {
    issuer: 'https://orders.example',
    token_endpoint: `${service.url}/auth/token`,
    revocation_endpoint: `${service.url}/auth/revoke`,
  };
});
afterAll(() => service.stop());

const signIn = async (password = user.password) =>
  oauth.processGenericTokenEndpointResponse(
    as,
    client,
    await oauth.genericTokenEndpointRequest(
      as,
      client,
      clientAuth,
      'password',
      { username: user.email, password, scope: '' },
      insecure,
    ),
  );

const refresh = async (refreshToken: string) =>
  oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, insecure),
  );

const me = async (accessToken: string) =>
  oauth.protectedResourceRequest(
    accessToken,
    'GET',
    new URL(`${service.url}/users/me`),
    new Headers(),
    null,
    insecure,
  );

/** What the library throws on a refused grant: the challenge of the 401, without error="invalid_token". */
const expectRefusedGrant = async (attempt: Promise<unknown>) => {
  const error = await attempt.then(
    () => expect.unreachable('the grant was accepted'),
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  const challenge = error as oauth.WWWAuthenticateChallengeError;
  expect(challenge.status).toBe(401);
  expect(challenge.cause).toEqual([
    { scheme: 'bearer', parameters: { realm: 'order-service' }, token68: undefined },
  ]);
};

describe('oauth4webapi against the token endpoints', () => {
  it('signs in with the password grant: a bearer token that the API takes, and a refresh token', async () => {
    const tokens = await signIn();
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const response = await me(tokens.access_token);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: user.id, email: user.email });
  });

  it('refreshes: a new pair, and the refresh token it spent is refused from then on', async () => {
    const first = await signIn();
    const second = await refresh(first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await me(second.access_token)).status).toBe(200);
    await expectRefusedGrant(refresh(first.refresh_token!));
  });

  it('revokes a refresh token (RFC 7009): its session ends', async () => {
    const tokens = await signIn();
    const response = await oauth.revocationRequest(as, client, clientAuth, tokens.refresh_token!, insecure);
    await expect(oauth.processRevocationResponse(response)).resolves.toBeUndefined();
    await expectRefusedGrant(refresh(tokens.refresh_token!));
  });

  it('revokes an access token: the API refuses it from then on, with the challenge of RFC 6750', async () => {
    const tokens = await signIn();
    const response = await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, {
      ...insecure,
      additionalParameters: { token_type_hint: 'access_token' },
    });
    await expect(oauth.processRevocationResponse(response)).resolves.toBeUndefined();
    // A change reaches every process within a second: a bounded poll.
    const refusal = async () => {
      const deadline = performance.now() + 5_000;
      for (;;) {
        const failure = await me(tokens.access_token).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (failure !== undefined || performance.now() > deadline) return failure;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const failure = await refusal();
    expect(failure).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((failure as oauth.WWWAuthenticateChallengeError).cause).toEqual([
      expect.objectContaining({
        scheme: 'bearer',
        parameters: { realm: 'order-service', error: 'invalid_token' },
      }),
    ]);
  });

  it('fails cleanly on a wrong password: the 401 challenge, no token', async () => {
    await expectRefusedGrant(signIn('wrong password'));
  });
});
