import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../infrastructure/clock.ts';
import { hashPassword } from '../../infrastructure/auth/passwords.ts';
import type { Role } from '../../domain/identity/roles.ts';
import type { UserStore } from '../../identity/users.ts';

const demoUsers: { email: string; name: string; roles: Role[] }[] = [
  { email: 'customer@example.com', name: 'Demo Customer', roles: ['customer'] },
  { email: 'customer2@example.com', name: 'Second Demo Customer', roles: ['customer'] },
  { email: 'staff@example.com', name: 'Demo Staff', roles: ['staff'] },
  { email: 'auditor@example.com', name: 'Demo Auditor', roles: ['auditor'] },
  { email: 'admin@example.com', name: 'Demo Admin', roles: ['admin'] },
];

export type DemoCredentials = { email: string; password: string; roles: Role[] }[];

/**
 * On a store with no user at all, adds one demo user per role with a random password and returns the
 * credentials, which exist nowhere else: the caller shows them once. Returns [] when users exist.
 */
export const seedDemoUsers = async (users: UserStore, clock: Clock): Promise<DemoCredentials> => {
  if ((await users.countUsers()) > 0) return [];
  const credentials: DemoCredentials = [];
  for (const demo of demoUsers) {
    const password = randomBytes(12).toString('base64url');
    await users.addUser({
      id: randomUUID(),
      ...demo,
      passwordHash: await hashPassword(password),
      disabled: false,
      createdAt: clock.now().toISOString(),
    });
    credentials.push({ email: demo.email, password, roles: demo.roles });
  }
  return credentials;
};

export const formatDemoCredentials = (credentials: DemoCredentials): string =>
  [
    '',
    'Demo users were created (passwords shown this once; `npm run admin -- user:set-password` sets new ones):',
    ...credentials.map(
      ({ email, password, roles }) => `  ${email.padEnd(24)} ${password}   ${roles.join(', ')}`,
    ),
    '',
  ].join('\n');

/**
 * What a process that takes writes does once its port is bound (not before: a start that fails on a taken
 * port must not make, and lose, demo passwords): the demo users into an empty user store, when asked, their
 * passwords announced once.
 */
export const announceDemoUsers =
  ({
    seed,
    users,
    clock,
    announce,
  }: {
    seed: boolean;
    users: UserStore;
    clock: Clock;
    announce: (text: string) => void;
  }) =>
  async () => {
    if (!seed) return;
    const credentials = await seedDemoUsers(users, clock);
    if (credentials.length > 0) announce(formatDemoCredentials(credentials));
  };
