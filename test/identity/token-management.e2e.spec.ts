import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, postJson, problemOf } from '../support/http.ts';
import { startTestService, type TestService, type TestUser } from '../support/test-service.ts';

/**
 * Managing tokens (RFC 7009 revocation, sessions): a refresh token revoked ends its session, access tokens
 * included; an access token revoked is refused until it expires; a user lists and ends its sessions.
 * Changes reach every process within a second; these tests wait for that with a bounded poll.
 */
type Tokens = { access_token: string; refresh_token: string };
type SessionBody = {
  id: string;
  startedAt: string;
  lastUsedAt: string;
  expiresAt: string;
  clientAddress: string | null;
  userAgent: string | null;
  current: boolean;
};

describe('managing tokens: revocation and sessions', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      AUTH_FAILED_LOGINS_PER_ACCOUNT_AND_ADDRESS: '100',
      AUTH_RATE_LIMIT_PER_ADDRESS: '1000',
    });
  });
  afterAll(() => service.stop());

  const bearer = (tokens: Tokens) => ({ Authorization: `Bearer ${tokens.access_token}` });
  const me = (tokens: Tokens) => fetch(`${service.url}/users/me`, { headers: bearer(tokens) });
  const refresh = (tokens: Tokens) =>
    postJson(`${service.url}/auth/token/refresh`, { refresh_token: tokens.refresh_token });
  const signIn = async (user: TestUser, userAgent: string): Promise<Tokens> => {
    const response = await postJson(
      `${service.url}/auth/token`,
      { grant_type: 'password', username: user.email, password: user.password },
      { 'User-Agent': userAgent },
    );
    expect(response.status).toBe(200);
    return (await response.json()) as Tokens;
  };
  const sessionsOf = async (tokens: Tokens): Promise<SessionBody[]> => {
    const response = await fetch(`${service.url}/users/me/sessions`, { headers: bearer(tokens) });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    return (await response.json()) as SessionBody[];
  };
  /** Polls until `request` answers `status` (a change reaches every process within a second). */
  const eventually = async (status: number, request: () => Promise<Response>) => {
    const deadline = performance.now() + 5_000;
    for (;;) {
      const response = await request();
      if (response.status === status || performance.now() > deadline) return response;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  describe('POST /auth/revoke', () => {
    it('a refresh token: its session ends, the access token issued with it too; other sessions go on', async () => {
      const user = await service.addUser(['customer']);
      const laptop = await signIn(user, 'laptop');
      const phone = await signIn(user, 'phone');
      const revoked = await postJson(`${service.url}/auth/revoke`, {
        token: laptop.refresh_token,
        token_type_hint: 'refresh_token',
      });
      expect(revoked.status).toBe(200);
      expect(revoked.headers.get('cache-control')).toBe('no-store');
      expect(await revoked.text()).toBe('');

      expect((await refresh(laptop)).status).toBe(401);
      const refused = await eventually(401, () => me(laptop));
      expect(refused.status).toBe(401);
      expect(await problemOf(refused)).toMatchObject({
        detail: 'The session of this access token has ended.',
      });
      expect((await me(phone)).status).toBe(200);
      expect((await refresh(phone)).status).toBe(200);
    });

    it('an access token (form-encoded, as RFC 7009 sends it): refused from then on; its session refreshes on', async () => {
      const user = await service.addUser(['customer']);
      const tokens = await signIn(user, 'cli');
      expect((await me(tokens)).status).toBe(200);
      const revoked = await postForm(`${service.url}/auth/revoke`, {
        token: tokens.access_token,
        token_type_hint: 'access_token',
      });
      expect(revoked.status).toBe(200);
      const refused = await eventually(401, () => me(tokens));
      expect(await problemOf(refused)).toMatchObject({ detail: 'The access token was revoked.' });
      // The refresh token was not revoked: a new access token works.
      const renewed = (await (await refresh(tokens)).json()) as Tokens;
      expect((await eventually(200, () => me(renewed))).status).toBe(200);
    });

    it('answers 200 for a token it does not know, an expired one, or a wrong hint, and changes nothing', async () => {
      const user = await service.addUser(['customer']);
      const tokens = await signIn(user, 'x');
      for (const body of [
        { token: 'not-a-token-of-ours' },
        { token: 'eyJhbGciOiJub25lIn0.e30.', token_type_hint: 'access_token' },
        { token: tokens.refresh_token.slice(1), token_type_hint: 'nonsense' },
      ]) {
        expect((await postJson(`${service.url}/auth/revoke`, body)).status).toBe(200);
      }
      expect((await me(tokens)).status).toBe(200);
      // A hint naming the other kind still revokes the token it is.
      expect(
        (
          await postJson(`${service.url}/auth/revoke`, {
            token: tokens.refresh_token,
            token_type_hint: 'access_token',
          })
        ).status,
      ).toBe(200);
      expect((await refresh(tokens)).status).toBe(401);
    });

    it('400 invalid_request without a token, or with an empty one (RFC 7009, section 2.2.1)', async () => {
      const response = await postJson(`${service.url}/auth/revoke`, { token_type_hint: 'access_token' });
      expect(response.status).toBe(400);
      expect(await problemOf(response)).toMatchObject({
        errors: [{ field: 'token', message: expect.any(String) }],
        error: 'invalid_request',
        error_description: expect.any(String),
      });
      const empty = await postForm(`${service.url}/auth/revoke`, { token: '', client_id: 'demo' });
      expect(empty.status).toBe(400);
      expect(await problemOf(empty)).toMatchObject({
        errors: [{ field: 'token', message: expect.any(String) }],
        error: 'invalid_request',
      });
    });

    it('ignores client_id and other parameters it does not know, as standard clients send them', async () => {
      const user = await service.addUser(['customer']);
      const tokens = await signIn(user, 'oauth client');
      const revoked = await postForm(`${service.url}/auth/revoke`, {
        token: tokens.refresh_token,
        token_type_hint: '',
        client_id: 'demo',
        scope: '',
      });
      expect(revoked.status).toBe(200);
      expect((await refresh(tokens)).status).toBe(401);
    });
  });

  describe('/users/me/sessions', () => {
    it('lists each sign-in with where and when, marks the current one, and ends one of them', async () => {
      const user = await service.addUser(['customer']);
      const laptop = await signIn(user, 'laptop browser');
      const phone = await signIn(user, 'phone app');
      const listed = await sessionsOf(laptop);
      expect(listed).toHaveLength(2);
      expect(listed.map((s) => [s.userAgent, s.current]).sort()).toEqual([
        ['laptop browser', true],
        ['phone app', false],
      ]);
      for (const session of listed) {
        expect(session.clientAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
        expect(Date.parse(session.expiresAt)).toBeGreaterThan(Date.parse(session.lastUsedAt));
      }

      const phoneSession = listed.find((s) => s.userAgent === 'phone app')!;
      const ended = await fetch(`${service.url}/users/me/sessions/${phoneSession.id}`, {
        method: 'DELETE',
        headers: bearer(laptop),
      });
      expect(ended.status).toBe(204);
      expect((await refresh(phone)).status).toBe(401);
      expect((await eventually(401, () => me(phone))).status).toBe(401);
      expect((await sessionsOf(laptop)).map((s) => s.userAgent)).toEqual(['laptop browser']);
      // Gone now, as another user's session ids always are.
      const again = await fetch(`${service.url}/users/me/sessions/${phoneSession.id}`, {
        method: 'DELETE',
        headers: bearer(laptop),
      });
      expect(again.status).toBe(404);
    });

    it("another user's session id is not found, and stays active", async () => {
      const [ann, bob] = [await service.addUser(['customer']), await service.addUser(['customer'])];
      const annTokens = await signIn(ann, 'a');
      const bobTokens = await signIn(bob, 'b');
      const [bobSession] = await sessionsOf(bobTokens);
      const response = await fetch(`${service.url}/users/me/sessions/${bobSession!.id}`, {
        method: 'DELETE',
        headers: bearer(annTokens),
      });
      expect(response.status).toBe(404);
      expect(await problemOf(response)).toMatchObject({ type: 'https://orders.example/problems/not-found' });
      // Bob's session is still his, listed, and refreshes.
      expect((await sessionsOf(bobTokens)).map((session) => session.id)).toEqual([bobSession!.id]);
      expect((await refresh(bobTokens)).status).toBe(200);
    });

    it('a refresh keeps its session: same id, later lastUsedAt', async () => {
      const user = await service.addUser(['customer']);
      const first = await signIn(user, 'x');
      const [before] = await sessionsOf(first);
      await service.clock.advance(60_000);
      const second = (await (await refresh(first)).json()) as Tokens;
      const [after] = await sessionsOf(second);
      expect(after!.id).toBe(before!.id);
      expect(after!.startedAt).toBe(before!.startedAt);
      expect(Date.parse(after!.lastUsedAt)).toBeGreaterThan(Date.parse(before!.lastUsedAt));
    });

    it('DELETE /users/me/sessions ends every session, access tokens issued before included; a new sign-in works', async () => {
      const user = await service.addUser(['customer']);
      const [a, b] = [await signIn(user, 'a'), await signIn(user, 'b')];
      const ended = await fetch(`${service.url}/users/me/sessions`, { method: 'DELETE', headers: bearer(a) });
      expect(ended.status).toBe(204);
      for (const tokens of [a, b]) {
        expect((await refresh(tokens)).status).toBe(401);
        expect((await eventually(401, () => me(tokens))).status).toBe(401);
      }
      const fresh = await signIn(user, 'c');
      expect((await eventually(200, () => me(fresh))).status).toBe(200);
      expect((await sessionsOf(fresh)).map((s) => s.userAgent)).toEqual(['c']);
    });

    it('reusing a refresh token ends its session, and the access token issued with the reused one', async () => {
      const user = await service.addUser(['customer']);
      const stolen = await signIn(user, 'x');
      const rotated = (await (await refresh(stolen)).json()) as Tokens;
      expect((await refresh(stolen)).status).toBe(401);
      // The session is ended: the refresh token it had rotated to is refused too, not only the reused one.
      const refused = await refresh(rotated);
      expect(refused.status).toBe(401);
      expect(await problemOf(refused)).toMatchObject({ error: 'invalid_grant' });
      expect((await eventually(401, () => me(rotated))).status).toBe(401);
    });
  });
});
