import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxAddressesPerUser } from '../../identity/users.ts';
import { postJson, problemOf } from '../support/http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  // One test stores 51 addresses for one user in a second: past the per-user limit of addresses stored a
  // minute (30), which is not what it is about.
  service = await startTestService({ USER_WRITE_LIMIT_ADDRESSES: '1000' });
});
afterAll(() => service.stop());

const home = { street: '1 Rue de la République', city: 'Lyon', postalCode: '69001', country: 'FR' };

describe('GET /users/me', () => {
  it('answers who the caller is, with its addresses, privately', async () => {
    const user = await service.signIn(['customer']);
    const response = await fetch(`${service.url}/users/me`, { headers: user.auth });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    expect(response.headers.get('vary')).toBeNull();
    expect(await response.json()).toEqual({
      id: user.id,
      email: user.email,
      name: 'Test customer',
      roles: ['customer'],
      addresses: [],
    });
  });

  it('is open to every role, auditors included', async () => {
    const auditor = await service.signIn(['auditor']);
    expect((await fetch(`${service.url}/users/me`, { headers: auditor.auth })).status).toBe(200);
  });

  it('401 once the account is disabled, though the token has not expired', async () => {
    const user = await service.signIn(['customer']);
    await service.users.setDisabled(user.id, true);
    const response = await fetch(`${service.url}/users/me`, { headers: user.auth });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});

describe('POST /users/me/addresses and DELETE /users/me/addresses/{id}', () => {
  it('stores an address (201 with its id and Location), lists it, and removes it (204)', async () => {
    const user = await service.signIn(['customer']);
    const created = await postJson(`${service.url}/users/me/addresses`, home, user.auth);
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const address = (await created.json()) as { id: string };
    expect(address).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), ...home });
    expect(created.headers.get('location')).toBe(`/users/me/addresses/${address.id}`);

    const profile = (await (await fetch(`${service.url}/users/me`, { headers: user.auth })).json()) as {
      addresses: unknown[];
    };
    expect(profile.addresses).toEqual([address]);

    const removed = await fetch(`${service.url}/users/me/addresses/${address.id}`, {
      method: 'DELETE',
      headers: user.auth,
    });
    expect(removed.status).toBe(204);
    const again = await fetch(`${service.url}/users/me/addresses/${address.id}`, {
      method: 'DELETE',
      headers: user.auth,
    });
    expect(again.status).toBe(404);
    expect(await problemOf(again)).toMatchObject({ type: 'https://orders.example/problems/not-found' });
  });

  it('the Location of a stored address can be fetched, and GET /users/me/addresses lists them, privately', async () => {
    const user = await service.signIn(['customer']);
    const created = await postJson(`${service.url}/users/me/addresses`, home, user.auth);
    const location = created.headers.get('location')!;
    const stored = (await created.json()) as { id: string };
    const fetched = await fetch(`${service.url}${location}`, { headers: user.auth });
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('cache-control')).toBe('private, no-cache');
    expect(await fetched.json()).toEqual({ id: stored.id, ...home });
    const listed = await fetch(`${service.url}/users/me/addresses`, { headers: user.auth });
    expect(await listed.json()).toEqual([{ id: stored.id, ...home }]);
    const stranger = await service.signIn(['customer']);
    expect((await fetch(`${service.url}${location}`, { headers: stranger.auth })).status).toBe(404);
  });

  it("cannot remove another user's address: 404, and it stays", async () => {
    const [ann, bob] = [await service.signIn(['customer']), await service.signIn(['customer'])];
    const address = (await (await postJson(`${service.url}/users/me/addresses`, home, ann.auth)).json()) as {
      id: string;
    };
    const attempt = await fetch(`${service.url}/users/me/addresses/${address.id}`, {
      method: 'DELETE',
      headers: bob.auth,
    });
    expect(attempt.status).toBe(404);
    expect(await service.users.findAddress(ann.id, address.id)).not.toBeNull();
  });

  it('validates the address object of spec 2.1, reporting every field at once, and stores nothing', async () => {
    const user = await service.signIn(['customer']);
    const response = await postJson(
      `${service.url}/users/me/addresses`,
      { street: '', city: 'x'.repeat(101), country: 'fr', planet: 'Earth' },
      user.auth,
    );
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem.errors?.map((error) => error.field).sort()).toEqual([
      'city',
      'country',
      'planet',
      'postalCode',
      'street',
    ]);
    expect(problem.errors).toContainEqual({
      field: 'country',
      message: 'must be an ISO 3166-1 alpha-2 country code, such as FR',
    });
    expect(await service.users.listAddresses(user.id)).toEqual([]);
  });

  it.each(['XX', 'EU', 'FRA', 'fr'])('refuses the country code %s, and stores nothing', async (country) => {
    const user = await service.signIn(['customer']);
    const response = await postJson(`${service.url}/users/me/addresses`, { ...home, country }, user.auth);
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({
      type: 'https://orders.example/problems/validation-failed',
      errors: [{ field: 'country', message: 'must be an ISO 3166-1 alpha-2 country code, such as FR' }],
    });
    expect(await service.users.listAddresses(user.id)).toEqual([]);
  });

  it('415 for a form-encoded address; 400 for an array body', async () => {
    const user = await service.signIn(['customer']);
    const form = await fetch(`${service.url}/users/me/addresses`, {
      method: 'POST',
      headers: { ...user.auth, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(home).toString(),
    });
    expect(form.status).toBe(415);
    const array = await postJson(`${service.url}/users/me/addresses`, [home], user.auth);
    expect(array.status).toBe(400);
    expect((await problemOf(array)).errors).toEqual([{ field: 'body', message: expect.any(String) }]);
  });

  it(`409 past ${maxAddressesPerUser} addresses`, async () => {
    const user = await service.signIn(['customer']);
    for (let n = 0; n < maxAddressesPerUser; n++) {
      expect((await postJson(`${service.url}/users/me/addresses`, home, user.auth)).status).toBe(201);
    }
    const response = await postJson(`${service.url}/users/me/addresses`, home, user.auth);
    expect(response.status).toBe(409);
    expect(await problemOf(response)).toMatchObject({ type: 'https://orders.example/problems/conflict' });
  });
});
