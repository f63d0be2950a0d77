import { pollUntil } from '../support/embedded-child.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../support/http.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
let env: Record<string, string>;
beforeAll(async () => {
  service = await startTestService();
  env = { DATA_DIR: service.dataDir };
});
afterAll(() => service.stop());

const login = (email: string, password: string) =>
  postJson(`${service.url}/auth/token`, { grant_type: 'password', username: email, password });

const rolesOf = async (response: Response) => {
  const { access_token } = (await response.json()) as { access_token: string };
  return JSON.parse(Buffer.from(access_token.split('.')[1]!, 'base64url').toString()).roles as string[];
};

describe('npm run admin -- user:* (against the store of a running service)', () => {
  it('adds a user who can then log in with the given roles', async () => {
    const added = await runAdmin(
      [
        'user:add',
        '--email',
        'Ops@Shop.example',
        '--password',
        'long-enough-secret',
        '--role',
        'staff',
        '--name',
        'Ops',
      ],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^added [0-9a-f-]{36} {2}ops@shop\.example {2}Ops {2}\[staff\]\n$/);
    expect(added.stdout + added.stderr).not.toContain('long-enough-secret');

    const response = await login('ops@shop.example', 'long-enough-secret');
    expect(response.status).toBe(200);
    expect(await rolesOf(response)).toEqual(['staff']);
  });

  it('gives every role of a repeated --role, as of a comma-separated one, rather than only the last', async () => {
    const added = await runAdmin(
      [
        'user:add',
        '--email',
        'two@shop.example',
        '--password-stdin',
        '--role',
        'customer',
        '--role',
        'auditor',
      ],
      env,
      'two-roles-secret\n',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('[customer, auditor]');
    expect(await rolesOf(await login('two@shop.example', 'two-roles-secret'))).toEqual([
      'customer',
      'auditor',
    ]);

    const changed = await runAdmin(
      ['user:set-role', '--email', 'two@shop.example', '--role', 'staff', '--role', 'auditor,staff'],
      env,
    );
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('[staff, auditor]');
  });

  it('reads the password from standard input with --password-stdin', async () => {
    const added = await runAdmin(
      ['user:add', '--email', 'stdin@shop.example', '--password-stdin', '--role', 'customer'],
      env,
      'from-standard-input\n',
    );
    expect(added.code, added.stderr).toBe(0);
    expect((await login('stdin@shop.example', 'from-standard-input')).status).toBe(200);
  });

  it('lists users, changes roles, disables and enables', async () => {
    await runAdmin(
      ['user:add', '--email', 'sam@shop.example', '--password', 'sam-password', '--role', 'customer'],
      env,
    );
    const tokens = (await (await login('sam@shop.example', 'sam-password')).json()) as {
      access_token: string;
      refresh_token: string;
    };
    const me = () =>
      fetch(`${service.url}/users/me`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });

    expect((await runAdmin(['user:list'], env)).stdout).toMatch(
      /sam@shop\.example {2}sam@shop\.example {2}\[customer\]/,
    );

    expect(
      (await runAdmin(['user:set-role', '--email', 'sam@shop.example', '--role', 'staff,auditor'], env)).code,
    ).toBe(0);
    expect(await rolesOf(await login('sam@shop.example', 'sam-password'))).toEqual(['staff', 'auditor']);

    const disabled = await runAdmin(['user:disable', '--email', 'sam@shop.example'], env);
    expect(disabled.stdout).toContain('(disabled)');
    expect((await login('sam@shop.example', 'sam-password')).status).toBe(401);
    // Sessions end with it: the refresh token issued before is refused.
    const refreshed = await postJson(`${service.url}/auth/token/refresh`, {
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(401);

    expect((await runAdmin(['user:enable', '--email', 'sam@shop.example'], env)).code).toBe(0);
    const fresh = (await (await login('sam@shop.example', 'sam-password')).json()) as {
      access_token: string;
    };
    // Once the service sees the user enabled (a new token works), the token issued before the disabling
    // still does not: it does not come back to life with the user.
    await pollUntil('the new token accepted', async () => {
      const response = await fetch(`${service.url}/users/me`, {
        headers: { Authorization: `Bearer ${fresh.access_token}` },
      });
      return response.status === 200 ? true : undefined;
    });
    expect((await me()).status).toBe(401);
  });

  it('sets a new password from standard input, ending the sessions signed in with the old one', async () => {
    await runAdmin(
      ['user:add', '--email', 'lost@shop.example', '--password-stdin', '--role', 'customer'],
      env,
      'forgotten-password\n',
    );
    const before = (await (await login('lost@shop.example', 'forgotten-password')).json()) as {
      refresh_token: string;
    };

    const set = await runAdmin(
      ['user:set-password', '--email', 'Lost@Shop.example', '--password-stdin'],
      env,
      'a new long secret\n',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(
      /^password set for [0-9a-f-]{36} {2}lost@shop\.example .*; its sessions ended\n$/,
    );
    expect(set.stderr).toBe('');
    expect(set.stdout).not.toContain('a new long secret');

    expect((await login('lost@shop.example', 'a new long secret')).status).toBe(200);
    expect((await login('lost@shop.example', 'forgotten-password')).status).toBe(401);
    const refreshed = await postJson(`${service.url}/auth/token/refresh`, {
      refresh_token: before.refresh_token,
    });
    expect(refreshed.status).toBe(401);
  });

  it('warns on stderr when a password is given on the command line, and still takes it', async () => {
    const added = await runAdmin(
      ['user:add', '--email', 'argv@shop.example', '--password', 'seen-by-all', '--role', 'customer'],
      env,
    );
    expect(added.code).toBe(0);
    expect(added.stderr).toBe(
      "warning: --password shows the password in the shell history, the process list and npm's banner; " +
        'prefer --password-stdin\n',
    );
    expect((await login('argv@shop.example', 'seen-by-all')).status).toBe(200);
    const set = await runAdmin(
      ['user:set-password', '--email', 'argv@shop.example', '--password', 'seen-again-by-all'],
      env,
    );
    expect(set.code).toBe(0);
    expect(set.stderr).toMatch(/^warning: --password shows the password/);
    expect((await login('argv@shop.example', 'seen-again-by-all')).status).toBe(200);
  });

  it.each([
    [['user:set-password', '--email', 'ghost@shop.example', '--password-stdin'], /no user with e-mail/],
    [['user:set-password', '--email', 'ops@shop.example', '--password', 'short'], /at least 8 characters/],
    [
      ['user:add', '--email', 'x@shop.example', '--password', 'long-enough', '--role', 'wizard'],
      /unknown role wizard/,
    ],
    [
      ['user:add', '--email', 'x@shop.example', '--password', 'short', '--role', 'customer'],
      /at least 8 characters/,
    ],
    [
      ['user:add', '--email', 'ops@shop.example', '--password', 'long-enough', '--role', 'customer'],
      /exists already/,
    ],
    [['user:set-role', '--email', 'ghost@shop.example', '--role', 'admin'], /no user with e-mail/],
    [['user:add', '--bogus'], /Unknown option '--bogus'/],
    [['user:frobnicate'], /unknown command user:frobnicate/],
  ])('refuses %j with a message and exit code 64', async (args, message) => {
    const result = await runAdmin(args, env);
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm run admin');
  });
  it('refuses to enable, set a password for or change the roles of an erased user: erasure is final', async () => {
    const user = await service.addUser(['customer']);
    const erased = await runAdmin(['user:erase', '--id', user.id], service.adminEnv);
    expect(erased.code, erased.stderr).toBe(0);
    const anonymised = `erased-${user.id}@erased.invalid`;
    for (const args of [
      ['user:enable', '--email', anonymised],
      ['user:set-role', '--email', anonymised, '--role', 'admin'],
      ['user:set-password', '--email', anonymised, '--password-stdin'],
    ]) {
      const refused = await runAdmin(args, service.adminEnv, 'a-new-long-password\n');
      expect(refused.code, args.join(' ')).toBe(64);
      expect(refused.stderr).toContain(`${user.id} was erased: it cannot be enabled or changed`);
    }
    expect((await login(anonymised, 'a-new-long-password')).status).toBe(401);
    expect(await service.users.findById(user.id)).toMatchObject({ disabled: true, roles: ['customer'] });
  });
});
