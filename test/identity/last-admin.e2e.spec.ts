import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, problemOf } from '../support/http.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

// A service of its own: which users are admins is what this file is about.
let service: TestService;
beforeAll(async () => {
  service = await startTestService({ AUTH_RATE_LIMIT_PER_ADDRESS: '1000' });
});
afterAll(() => service.stop());

const erase = (userId: string, auth: Record<string, string>) =>
  fetch(`${service.url}/users/${userId}`, { method: 'DELETE', headers: auth });

const admin = (args: string[]) => runAdmin(args, service.adminEnv, 'long-enough-secret\n');

const canSignIn = async (email: string, password: string) =>
  (await postJson(`${service.url}/auth/token`, { grant_type: 'password', username: email, password })).status;

const expectLastAdminRefused = (outcome: { code: number | null; stderr: string; stdout: string }) => {
  expect(outcome.code, outcome.stderr).toBe(65);
  expect(outcome.stderr).toMatch(/last active admin/);
  expect(outcome.stdout).toBe('');
};

describe('the last active admin is never erased, disabled or demoted', () => {
  it('refuses, over HTTP (409) and in the CLI (exit 65), every change that would leave no active admin', async () => {
    const first = await service.signIn(['admin']);

    const selfErasure = await erase(first.id, first.auth);
    expect(selfErasure.status).toBe(409);
    expect(await problemOf(selfErasure)).toMatchObject({
      type: 'https://orders.example/problems/conflict',
      status: 409,
      detail: expect.stringMatching(/last active admin/),
    });
    expectLastAdminRefused(await admin(['user:erase', '--id', first.id]));
    expectLastAdminRefused(await admin(['user:erase', '--email', first.email]));
    expectLastAdminRefused(
      await admin(['user:set-role', '--email', first.email, '--role', 'customer,staff']),
    );
    expectLastAdminRefused(await admin(['user:disable', '--email', first.email]));
    // Nothing changed: the admin still signs in and acts as one.
    expect(await canSignIn(first.email, first.password)).toBe(200);
    expect((await fetch(`${service.url}/webhooks`, { headers: first.auth })).status).toBe(200);

    // With a second admin, the first may go; then the second is the last.
    const added = await admin([
      'user:add',
      '--email',
      'second-admin@shop.example',
      '--password-stdin',
      '--role',
      'admin',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const second = await service.login({
      email: 'second-admin@shop.example',
      password: 'long-enough-secret',
    });
    const secondAuth = { Authorization: `Bearer ${second.access_token}` };
    expect((await erase(first.id, secondAuth)).status).toBe(204);
    const secondId = (await service.users.findByEmail('second-admin@shop.example'))!.id;
    expect((await erase(secondId, secondAuth)).status).toBe(409);
    expectLastAdminRefused(
      await admin(['user:set-role', '--email', 'second-admin@shop.example', '--role', 'staff']),
    );

    // A disabled admin is no admin to fall back on.
    const third = await admin([
      'user:add',
      '--email',
      'third-admin@shop.example',
      '--password-stdin',
      '--role',
      'admin',
    ]);
    expect(third.code, third.stderr).toBe(0);
    expect((await admin(['user:disable', '--email', 'third-admin@shop.example'])).code).toBe(0);
    expectLastAdminRefused(await admin(['user:erase', '--id', secondId]));

    // Enabled again, it is: the second may then be demoted, and keeps its other roles.
    expect((await admin(['user:enable', '--email', 'third-admin@shop.example'])).code).toBe(0);
    const demoted = await admin(['user:set-role', '--email', 'second-admin@shop.example', '--role', 'staff']);
    expect(demoted.code, demoted.stderr).toBe(0);
    expect(demoted.stdout).toMatch(/\[staff\]/);
  }, 120_000);

  it('keeps changing the roles of the last admin as long as admin stays among them', async () => {
    const users = await service.users.activeUserIdsWithRole('admin');
    expect(users).toHaveLength(1);
    const [only] = await Promise.all(users.map((id) => service.users.findById(id)));
    const kept = await admin(['user:set-role', '--email', only!.email, '--role', 'admin,auditor']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(/\[admin, auditor\]/);
  });
});
