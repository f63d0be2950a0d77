import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { ApiError } from '../http/api-error.ts';
import { principalOf } from './authenticate.ts';

/** The writes one user may make at most so many of per window. */
export const writeKinds = ['orders', 'addresses', 'sessions'] as const;
export type WriteKind = (typeof writeKinds)[number];

const what: Record<WriteKind, string> = {
  orders: 'orders placed',
  addresses: 'addresses stored',
  sessions: 'sessions opened (password sign-ins)',
};

const limitVariable = (fallback: number, description: string) =>
  z.coerce.number().int().nonnegative().default(fallback).describe(description);

/**
 * Per-user limits on writes, shared by every process that signs in or takes writes. Customers (and
 * auditors) count against the USER_ limits; staff and admins against their own, higher, STAFF_ limits.
 */
export const writeLimitEnvironment = {
  USER_WRITE_LIMIT_ORDERS: limitVariable(60, `Orders one customer may place per window (0: no limit).`),
  USER_WRITE_LIMIT_ADDRESSES: limitVariable(30, 'Addresses one customer may store per window (0: no limit).'),
  USER_WRITE_LIMIT_SESSIONS: limitVariable(
    30,
    'Sessions (password sign-ins) one customer or auditor may open per window (0: no limit).',
  ),
  STAFF_WRITE_LIMIT_ORDERS: limitVariable(
    600,
    'Orders one staff member or admin may place per window (0: no limit).',
  ),
  STAFF_WRITE_LIMIT_ADDRESSES: limitVariable(
    300,
    'Addresses one staff member or admin may store per window (0: no limit).',
  ),
  STAFF_WRITE_LIMIT_SESSIONS: limitVariable(
    300,
    'Sessions (password sign-ins) one staff member or admin may open per window (0: no limit).',
  ),
  WRITE_LIMIT_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe('The window of the per-user write limits, in seconds.'),
};

type WriteLimitEnvironment = {
  [Name in keyof typeof writeLimitEnvironment]: number;
};

export type WriteLimits = {
  /** Per kind of write, for customers and auditors; 0: no limit. */
  user: Record<WriteKind, number>;
  /** Per kind of write, for staff and admins; 0: no limit. */
  staff: Record<WriteKind, number>;
  windowSeconds: number;
};

export const writeLimitsConfig = (env: WriteLimitEnvironment): WriteLimits => ({
  user: {
    orders: env.USER_WRITE_LIMIT_ORDERS,
    addresses: env.USER_WRITE_LIMIT_ADDRESSES,
    sessions: env.USER_WRITE_LIMIT_SESSIONS,
  },
  staff: {
    orders: env.STAFF_WRITE_LIMIT_ORDERS,
    addresses: env.STAFF_WRITE_LIMIT_ADDRESSES,
    sessions: env.STAFF_WRITE_LIMIT_SESSIONS,
  },
  windowSeconds: env.WRITE_LIMIT_WINDOW_SECONDS,
});

/**
 * Counts each user's writes of each kind per window (rate-limiter-flexible, fixed windows) and refuses the
 * one past the limit with 429 problem details and Retry-After, before anything is read or appended. A user
 * holding any of `staffRoles` counts against the staff limits, in counters of its own. Counters live in
 * this process, as every rate limit of the service does: with several command-api processes behind a load
 * balancer, one user may make up to that many times the limit in all.
 */
export const createWriteLimits = ({
  limits,
  staffRoles,
}: {
  limits: WriteLimits;
  /** The roles whose holders count against the staff limits. */
  staffRoles: readonly string[];
}) => {
  const limiters = (tier: 'user' | 'staff') =>
    Object.fromEntries(
      writeKinds.map((kind) => [
        kind,
        limits[tier][kind] === 0
          ? null
          : new RateLimiterMemory({
              keyPrefix: `writes-${tier}-${kind}`,
              points: limits[tier][kind],
              duration: limits.windowSeconds,
            }),
      ]),
    ) as Record<WriteKind, RateLimiterMemory | null>;
  const byTier = { user: limiters('user'), staff: limiters('staff') };

  type User = { id: string; roles: readonly string[] };
  const tierOf = (user: User) => (user.roles.some((role) => staffRoles.includes(role)) ? 'staff' : 'user');
  const refusal = (kind: WriteKind, tier: 'user' | 'staff', msBeforeNext: number) => {
    const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return new ApiError(
      'rate-limited',
      `Too many ${what[kind]} by this user: at most ${limits[tier][kind]} in ` +
        `${limits.windowSeconds} s. Retry in ${retryAfter} s.`,
      { headers: { 'Retry-After': String(retryAfter) } },
    );
  };

  /** Refuses with the 429 problem when this user has made as many writes of this kind as the window allows. */
  const check = async (kind: WriteKind, user: User) => {
    const tier = tierOf(user);
    const limiter = byTier[tier][kind];
    const used = await limiter?.get(user.id);
    if (limiter && used && used.consumedPoints >= limiter.points)
      throw refusal(kind, tier, used.msBeforeNext);
  };

  /** Counts one write of this kind by this user; throws the 429 problem past the limit. */
  const count = async (kind: WriteKind, user: User) => {
    const tier = tierOf(user);
    const limiter = byTier[tier][kind];
    if (limiter === null) return;
    try {
      await limiter.consume(user.id);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw refusal(kind, tier, rejection.msBeforeNext);
    }
  };

  /** Counts a write that was made: past the limit it is counted all the same (writes at once may pass it). */
  const counted = async (kind: WriteKind, user: User) => {
    const limiter = byTier[tierOf(user)][kind];
    await limiter?.penalty(user.id, 1);
  };

  return {
    count,
    /**
     * The route step before a write: refuses the caller once it made as many writes of this kind as the window
     * allows. Only writes made count (`counted`, once the route made one): a refused request, a 400, or an
     * answer replayed for an Idempotency-Key uses up nothing.
     */
    route:
      (kind: WriteKind): RequestHandler =>
      async (_request, response, next) => {
        const { userId, roles } = principalOf(response);
        await check(kind, { id: userId, roles });
        next();
      },
    /** Counts the write the authenticated caller just made. */
    counted: (kind: WriteKind, principal: { userId: string; roles: readonly string[] }) =>
      counted(kind, { id: principal.userId, roles: principal.roles }),
  };
};

export type WriteLimiter = ReturnType<typeof createWriteLimits>;
