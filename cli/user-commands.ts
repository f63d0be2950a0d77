import { createSessions } from '../infrastructure/auth/sessions.ts';
import { createUserErasure } from '../command-api/identity/erase-user.ts';
import { isErased } from '../identity/erased-user.ts';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { hashPassword } from '../infrastructure/auth/passwords.ts';
import { isRole, roles, type Role } from '../domain/identity/roles.ts';
import { EmailTakenError, keepAnAdmin, type User } from '../identity/users.ts';
import type { Clock } from '../infrastructure/clock.ts';
import type { AdminStores } from './admin-stores.ts';

/** A mistake in how the command was called: the CLI prints it with the usage and exits 64. */
export class UsageError extends Error {
  readonly kind = 'usage';
}

export type CommandContext = {
  stores: AdminStores;
  clock: Clock;
  catalogCurrency: string;
  out: (line: string) => void;
  /** Notices for the operator that must not mix with data on stdout (an export written there). */
  err: (line: string) => void;
  /** Reads standard input to its end (for --password-stdin). */
  readStdin: () => Promise<string>;
};

const minimumPasswordLength = 8;

/**
 * The roles of `--role R[,R...]`, which may be repeated: every one given counts (a repeated option was
 * once taken for its last value alone, dropping the others without a word).
 */
const parseRoles = (values: readonly string[] | undefined): Role[] => {
  const listed = (values ?? []).flatMap((value) => value.split(',')).map((role) => role.trim());
  if (listed.every((role) => role === '')) throw new UsageError('--role is required');
  const unknown = listed.filter((role) => !isRole(role));
  if (unknown.length > 0)
    throw new UsageError(`unknown role ${unknown.join(', ')}; roles are ${roles.join(', ')}`);
  return [...new Set(listed as Role[])];
};

const options = {
  email: { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  role: { type: 'string', multiple: true },
  name: { type: 'string' },
  id: { type: 'string' },
} as const;

const parse = (args: string[]) => {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
};

/**
 * The password of user:add and user:set-password: from standard input with --password-stdin (one line; its
 * newline dropped), or from --password, which works but is warned about: the command line shows in the
 * shell's history and in the process list, and `npm run` prints it in its banner.
 */
const passwordOf = async (
  values: { password?: string | undefined; 'password-stdin'?: boolean | undefined },
  context: CommandContext,
): Promise<string> => {
  if (values.password !== undefined && values['password-stdin']) {
    throw new UsageError('give either --password or --password-stdin');
  }
  if (values.password !== undefined) {
    context.err(
      "warning: --password shows the password in the shell history, the process list and npm's banner; " +
        'prefer --password-stdin',
    );
  }
  const password = values['password-stdin']
    ? (await context.readStdin()).replace(/\r?\n$/, '')
    : values.password;
  if (!password || password.length < minimumPasswordLength) {
    throw new UsageError(`a password of at least ${minimumPasswordLength} characters is required`);
  }
  return password;
};

const requireUser = async ({ stores }: CommandContext, email: string | undefined): Promise<User> => {
  if (!email) throw new UsageError('--email is required');
  const user = await stores.users.findByEmail(email);
  if (!user) throw new UsageError(`no user with e-mail ${email}`);
  return user;
};

/**
 * A user that may be changed back into use: an erased one may not (its data key is gone for good, so it
 * could never hold personal data again; erasure is final).
 */
const requireUnerasedUser = async (context: CommandContext, email: string | undefined): Promise<User> => {
  const user = await requireUser(context, email);
  if (isErased(user)) throw new UsageError(`${user.id} was erased: it cannot be enabled or changed`);
  return user;
};

const describe = (user: User) =>
  `${user.id}  ${user.email}  ${user.name}  [${user.roles.join(', ')}]${user.disabled ? '  (disabled)' : ''}`;

export const userCommands: Record<string, (args: string[], context: CommandContext) => Promise<void>> = {
  async 'user:add'(args, context) {
    const values = parse(args);
    if (!values.email || !/^[^\s@]+@[^\s@]+$/.test(values.email))
      throw new UsageError('--email E is required');
    const password = await passwordOf(values, context);
    const user: User = {
      id: randomUUID(),
      email: values.email,
      name: values.name ?? values.email,
      passwordHash: await hashPassword(password),
      roles: parseRoles(values.role),
      disabled: false,
      createdAt: context.clock.now().toISOString(),
    };
    try {
      await context.stores.users.addUser(user);
    } catch (error) {
      if (error instanceof EmailTakenError) throw new UsageError(error.message);
      throw error;
    }
    context.out(`added ${describe({ ...user, email: user.email.toLowerCase() })}`);
  },

  async 'user:list'(args, context) {
    parse(args);
    for (const user of await context.stores.users.listUsers()) context.out(describe(user));
  },

  async 'user:set-role'(args, context) {
    const values = parse(args);
    const user = await requireUnerasedUser(context, values.email);
    const roles = parseRoles(values.role);
    if (!roles.includes('admin')) await keepAnAdmin(context.stores.users, user.id);
    const updated = await context.stores.users.setRoles(user.id, roles);
    context.out(`updated ${describe(updated!)}`);
  },

  async 'user:set-password'(args, context) {
    const values = parse(args);
    const user = await requireUnerasedUser(context, values.email);
    const password = await passwordOf(values, context);
    const updated = await context.stores.users.setPasswordHash(user.id, await hashPassword(password));
    // Whoever signed in with the old password is signed out: no refresh token of this user works any more,
    // nor any access token issued until now.
    const { users, refreshTokens } = context.stores;
    await createSessions({ users, refreshTokens, clock: context.clock }).endAll(user.id);
    context.out(`password set for ${describe(updated!)}; its sessions ended`);
  },

  async 'user:disable'(args, context) {
    const values = parse(args);
    const user = await requireUser(context, values.email);
    await keepAnAdmin(context.stores.users, user.id);
    const updated = await context.stores.users.setDisabled(user.id, true);
    // Signed-in sessions end too: no refresh token of this user works any more, nor any access token
    // issued until now, should the user be enabled again.
    const { users, refreshTokens } = context.stores;
    await createSessions({ users, refreshTokens, clock: context.clock }).endAll(user.id);
    context.out(`disabled ${describe(updated!)}`);
  },

  async 'user:erase'(args, context) {
    const values = parse(args);
    if ((values.email === undefined) === (values.id === undefined)) {
      throw new UsageError('give either --email E or --id ID');
    }
    const { stores, clock } = context;
    const user =
      values.id !== undefined
        ? await stores.users.findById(values.id)
        : await stores.users.findByEmail(values.email!);
    if (!user) {
      // An erased user's e-mail is gone: a repeat by e-mail finds nobody, which is what was asked.
      throw new UsageError(
        values.id !== undefined
          ? `no user with id ${values.id}`
          : `no user with e-mail ${values.email} (an erased user's e-mail is gone: use --id to repeat)`,
      );
    }
    const erasure = createUserErasure({
      users: stores.users,
      refreshTokens: stores.refreshTokens,
      keyring: { erase: (ownerId, at) => stores.dataKeys.erase(ownerId, at) },
      eventStore: stores.events,
      clock,
      flushDeleted: stores.flushDeleted,
    });
    const outcome = (await erasure.erase(user.id, {
      actor: null,
      correlationId: `admin-cli-${randomUUID()}`,
    }))!;
    context.out(
      outcome.keyDeleted || outcome.recorded
        ? `erased ${user.id}: its data key is deleted, its record anonymised, its sessions ended`
        : `${user.id} was erased already; its record is anonymised and its sessions ended`,
    );
  },

  async 'user:enable'(args, context) {
    const values = parse(args);
    const user = await requireUnerasedUser(context, values.email);
    const updated = await context.stores.users.setDisabled(user.id, false);
    context.out(`enabled ${describe(updated!)}`);
  },
};
