import type { Request, Response, Router } from 'express';
import { createRouter } from '../../infrastructure/http/router.ts';
import { z } from 'zod';
import type { Caller } from '../../domain/orders/order-actions.ts';
import { orderStatuses, orderStreamName } from '../../domain/orders/order.ts';
import { authenticate, mayActOn, ownOnly, principalOf } from '../../infrastructure/auth/authenticate.ts';
import { authorize } from '../authorize.ts';
import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import { scopeOf, type Operation } from '../../domain/identity/permissions.ts';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import { forbidden, notFound, validationFailed } from '../../infrastructure/http/api-error.ts';
import { sendRepresentation } from '../../infrastructure/http/representation.ts';
import {
  ownedJsonRepresentation,
  sendRevealedJson,
  type Reveal,
  type RevealOwned,
} from '../../infrastructure/personal-data/revealed.ts';
import { uuidParam } from '../../infrastructure/http/path-params.ts';
import { parseInput } from '../../infrastructure/http/validation.ts';
import type { FieldError } from '../../infrastructure/validation/field-errors.ts';
import type {
  OrderListQuery,
  OrderReadModel,
  TotalBounds,
} from '../../projections/orders/order-read-model.ts';
import { minorUnitsOfText, tooManyDecimals } from '../../domain/shared/money.ts';
import type { ProjectionProgress } from '../../infrastructure/event-sourcing/projection-progress.ts';
import { decodeOrderEvent } from '../../domain/orders/order-codec.ts';
import { normalizeEmail, type UserStore } from '../../identity/users.ts';
import { detailsOf, type OrderDetails } from '../../domain/orders/order-details.ts';
import type { OrderView } from '../../projections/orders/order-projection.ts';
import { actionsFor, currentOrderResource, orderResource } from '../../domain/orders/order-resource.ts';
import { eventResource } from '../audit/event-resource.ts';
import { cursorLinks, decodeCursor, encodeCursor } from '../pagination/cursor.ts';
import { paginationQuery } from '../pagination/pagination-query.ts';
import { readYourWrites } from '../read-your-writes.ts';
import { createOrderRepresentations } from './order-representations.ts';
import { customersOf } from './order-customers.ts';
import type { ConsistencyTokens } from '../../infrastructure/http/consistency-tokens.ts';

/** A time of the listing's filters: a date (midnight UTC) or a date and time, as the views store it. */
const placedAt = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/, 'must be an ISO 8601 date, or date and time')
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 date, or date and time')
  .transform((value) => new Date(value).toISOString());

/** A bound of the listing's total: a decimal amount as the API writes one (`49.95`), in the shop's currency. */
const totalBound = z
  .string()
  .regex(/^(?!-)/, { error: 'must not be negative', abort: true })
  .regex(/^\d+(\.\d+)?$/, { error: 'must be a decimal amount, such as 49.95', abort: true })
  // Leading zeros are not digits of the amount; how many decimals it may have is the currency's to say.
  .regex(/^0*\d{1,12}(\.|$)/, 'is too large: at most 12 digits before the point');

export const listingQuery = z.strictObject({
  ...paginationQuery,
  status: z.enum(orderStatuses, { error: `must be one of ${orderStatuses.join(', ')}` }).optional(),
  idEndsWith: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.string().regex(/^[0-9a-f]{8}$/, 'must be an order id’s last 8 hex digits'))
    .optional()
    .meta({
      description:
        'Only the orders whose id ends with these 8 hex digits: the short id a person reads off a list or a parcel (the last 8, which vary; a UUIDv7 begins with its time).',
    }),
  idStartsWith: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(
      z
        .string()
        .regex(/^[0-9a-f][0-9a-f-]{3,35}$/, 'must be the start of an order id: 4 to 36 of its characters'),
    )
    .optional()
    .meta({
      description:
        'Only the orders whose id begins with these characters (4 to 36, any case): the start of an id a person copied. A UUIDv7 begins with its time: its first 8 hex digits are shared by the orders placed within about a minute.',
    }),
  placedFrom: placedAt.optional().meta({
    description:
      'Only the orders placed at or after this time: an ISO 8601 date (`2026-11-27`, midnight UTC) or date and time.',
  }),
  placedBefore: placedAt.optional().meta({
    description: 'Only the orders placed before this time, in the same form as placedFrom.',
  }),
  minTotal: totalBound.optional().meta({
    description:
      'Only the orders whose total is at least this amount: a decimal in the shop’s currency, as `total.amount` reads (`20` or `49.95`); orders in another currency are left out.',
  }),
  maxTotal: totalBound.optional().meta({
    description: 'Only the orders whose total is at most this amount, in the same form as minTotal.',
  }),
  customerEmail: z
    .string()
    .max(320)
    .transform(normalizeEmail)
    .pipe(z.email('must be an e-mail address'))
    .optional()
    .meta({
      description:
        'Only the orders of the customer signed up with this e-mail address (none when there is no such customer). For a customer, its own orders if it is its own address, else none.',
    }),
});

/** Any run of digits: one beyond the order's last revision, however large, is not found (404). */
export const revisionQuery = z
  .string()
  .regex(/^\d+$/, 'must be a stream revision: a whole number from 0')
  .transform(Number);
const pastRevisionQuery = z.object({ revision: revisionQuery });

export type OrderQueryDeps = {
  readModel: OrderReadModel;
  eventStore: EventStore;
  progress: ProjectionProgress;
  authenticator: Authenticator;
  /** How long a query with a Consistency-Token waits for the read models. */
  consistencyTimeoutMs: number;
  /** Opens the personal fields the read model and the log keep sealed ("[erased]" once erased). */
  reveal: Reveal;
  /** Which personal-data key an opened representation was made with (see order-representations.ts). */
  keyStamp: (ownerId: string) => object | undefined;
  /** Opens an order's sealed fields and says where its customer's key stood: part of its ETag. */
  revealOwned: RevealOwned;
  /** Reads the Consistency-Tokens the command side issued to each caller. */
  consistencyTokens: Pick<ConsistencyTokens, 'positionOf'>;
  /** Finds the customer of `?customerEmail=`, and the customers a listing names. */
  users: Pick<UserStore, 'findByEmail' | 'findByIds'>;
  /** The shop's currency (CATALOG_CURRENCY): the one of `?minTotal=` and `?maxTotal=`. */
  currency: string;
};

/**
 * `?minTotal=` and `?maxTotal=` in the currency's minor units; 400 on the bound with more decimal places
 * than the currency has, and on a minTotal above maxTotal.
 */
const totalWithin = (
  { minTotal, maxTotal }: { minTotal?: string | undefined; maxTotal?: string | undefined },
  currency: string,
): TotalBounds | undefined => {
  if (minTotal === undefined && maxTotal === undefined) return undefined;
  const tooPrecise: FieldError[] = [];
  const inMinorUnits = (amount: string | undefined, field: string) => {
    if (amount === undefined) return undefined;
    const minor = minorUnitsOfText(amount, currency);
    if (minor === null) tooPrecise.push({ field, message: tooManyDecimals(currency) });
    return minor ?? undefined;
  };
  const atLeastMinor = inMinorUnits(minTotal, 'minTotal');
  const atMostMinor = inMinorUnits(maxTotal, 'maxTotal');
  if (tooPrecise.length > 0) throw validationFailed(tooPrecise);
  if (atLeastMinor !== undefined && atMostMinor !== undefined && atLeastMinor > atMostMinor) {
    throw validationFailed([{ field: 'minTotal', message: 'must not be above maxTotal' }]);
  }
  return {
    currency,
    ...(atLeastMinor === undefined ? {} : { atLeastMinor }),
    ...(atMostMinor === undefined ? {} : { atMostMinor }),
  };
};

const noSuchOrder = 'There is no order with this id.';

/**
 * The order at a revision, as the caller reads it: now (`currentOrderResource`, with the caller's actions)
 * or in the past (`orderResource`: nothing can be done to a past state, so no `actions`). The same bytes and
 * ETag as the command side's (ownedEtag: its sealed form and the standing of the customer's key).
 */
const representationOf = async (revealOwned: RevealOwned, details: OrderDetails, caller: Caller | 'past') => {
  const resource = caller === 'past' ? orderResource(details) : currentOrderResource(details, caller);
  const { representation } = await ownedJsonRepresentation(revealOwned, details.customerId, resource, {
    lastModified: details.updatedAt,
  });
  return representation;
};
const orderIdParam = (request: Request) => uuidParam(request, 'orderId', noSuchOrder);

/**
 * The query side of orders: GET /orders, GET /orders/{id} (and ?revision=N), GET /orders/{id}/events.
 * Orders come from the read model; history and past revisions from the order's stream in the log.
 */
export const orderQueryRoutes = ({
  readModel,
  eventStore,
  progress,
  authenticator,
  consistencyTimeoutMs,
  reveal,
  keyStamp,
  revealOwned,
  consistencyTokens,
  users,
  currency,
}: OrderQueryDeps): Router => {
  const router = createRouter();
  const representations = createOrderRepresentations<OrderView>({ keyStamp });
  /** The order's view now: the kept one when the read model says it is unchanged, which parses nothing. */
  const orderNow = async (id: string): Promise<OrderView | null> => {
    const known = representations.orderOf(id);
    const read = await readModel.getOrderIfChanged(id, known?.revision ?? -1);
    return read === 'unchanged' ? known! : read;
  };
  /**
   * The order's representation for this caller: kept from an earlier read of the same revision with the
   * same actions (a customer's, staff's), or rendered now.
   */
  const currentRepresentation = async (order: OrderView, caller: Caller) => {
    const variant = actionsFor(order, caller).join(' ');
    const kept = representations.get(order, variant);
    if (kept) return kept;
    // The key's stamp before opening: one kept after an erasure came in between is never used.
    const stamp = keyStamp(order.customerId);
    const representation = await representationOf(revealOwned, order, caller);
    representations.keep(order, variant, representation, stamp);
    return representation;
  };
  const auth = authenticate(authenticator);
  const consistent = readYourWrites(
    progress,
    consistencyTimeoutMs,
    () => eventStore.headPosition(),
    consistencyTokens,
  );
  const reader = (operation: Operation) => [auth, authorize(operation), consistent];

  /**
   * The order's stream as stored, and its events as the current versions, when the caller may see that
   * order; 404 otherwise, never 403.
   */
  const historyFor = async (request: Request, response: Response) => {
    const stored = await eventStore.readStream(orderStreamName(orderIdParam(request)));
    const events = stored.map((event) => decodeOrderEvent(event)!);
    const order = detailsOf(events);
    if (!order || !mayActOn(response, order.customerId)) throw notFound(noSuchOrder);
    return { stored, events };
  };

  router.get('/orders', ...reader('listOrders'), async (request, response) => {
    const customerId = ownOnly(response);
    const caller = principalOf(response);
    const query = parseInput(listingQuery, request.query, 'query');
    if (query.page !== undefined && query.cursor !== undefined) {
      throw validationFailed([{ field: 'cursor', message: 'use either page or cursor, not both' }]);
    }
    const bounds = totalWithin(query, currency);
    // By e-mail: that customer's orders, through the user store's own lookup (the address is neither kept
    // nor indexed with the orders); an address of nobody, or of another than a customer caller, finds none.
    const byEmail =
      query.customerEmail === undefined
        ? undefined
        : ((await users.findByEmail(query.customerEmail))?.id ?? null);
    const findsNone =
      byEmail === null || (byEmail !== undefined && customerId !== undefined && byEmail !== customerId);
    const filter = {
      ...(customerId === undefined ? {} : { customerId }),
      ...(byEmail === undefined || byEmail === null ? {} : { customerId: byEmail }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.idEndsWith === undefined ? {} : { idEndsWith: query.idEndsWith }),
      ...(query.idStartsWith === undefined ? {} : { idStartsWith: query.idStartsWith }),
      ...(query.placedFrom === undefined ? {} : { placedFrom: query.placedFrom }),
      ...(query.placedBefore === undefined ? {} : { placedBefore: query.placedBefore }),
      ...(bounds === undefined ? {} : { totalWithin: bounds }),
      limit: query.perPage,
    };

    if (query.cursor === undefined) {
      const page = query.page ?? 1;
      const { orders, total } = findsNone
        ? { orders: [], total: 0 }
        : await readModel.listOrders({
            ...filter,
            kind: 'page',
            offset: (page - 1) * query.perPage,
          });
      return sendRevealedJson(reveal, request, response, {
        meta: { total: total ?? 0, page, perPage: query.perPage },
        data: orders.map((order) => currentOrderResource(order, caller)),
        customers: await customersOf(users, orders),
      });
    }

    const decoded = query.cursor === '' ? undefined : decodeCursor(query.cursor);
    if (query.cursor !== '' && !decoded) {
      throw validationFailed([{ field: 'cursor', message: 'is not a cursor from a links member' }]);
    }
    const listing: OrderListQuery = {
      ...filter,
      kind: 'cursor',
      ...(decoded === undefined
        ? {}
        : decoded.direction === 'after'
          ? { after: decoded.at }
          : { before: decoded.at }),
    };
    const { orders, hasMore } = findsNone
      ? { orders: [], hasMore: false }
      : await readModel.listOrders(listing);
    const link = (direction: 'after' | 'before', order: OrderView | undefined) => {
      if (!order) return null;
      const params = new URLSearchParams({
        cursor: encodeCursor(direction, order),
        perPage: String(query.perPage),
      });
      if (query.status !== undefined) params.set('status', query.status);
      if (query.idEndsWith !== undefined) params.set('idEndsWith', query.idEndsWith);
      if (query.idStartsWith !== undefined) params.set('idStartsWith', query.idStartsWith);
      if (query.customerEmail !== undefined) params.set('customerEmail', query.customerEmail);
      if (query.placedFrom !== undefined) params.set('placedFrom', query.placedFrom);
      if (query.placedBefore !== undefined) params.set('placedBefore', query.placedBefore);
      if (query.minTotal !== undefined) params.set('minTotal', query.minTotal);
      if (query.maxTotal !== undefined) params.set('maxTotal', query.maxTotal);
      return `/orders?${params.toString()}`;
    };
    const { next, prev } = cursorLinks({ direction: decoded?.direction, hasMore, items: orders, link });
    await sendRevealedJson(reveal, request, response, {
      meta: { perPage: query.perPage },
      links: { next, prev },
      data: orders.map((order) => currentOrderResource(order, caller)),
      customers: await customersOf(users, orders),
    });
  });

  router.get('/orders/:orderId', ...reader('getOrder'), async (request, response) => {
    const revision = request.query['revision'];
    if (revision !== undefined) {
      if (scopeOf(principalOf(response).roles, 'getOrderAtRevision') === null) {
        throw forbidden('Only staff, auditors and admins read an order at a past revision.');
      }
      const { revision: upTo } = parseInput(pastRevisionQuery, { revision }, 'query');
      const { events } = await historyFor(request, response);
      if (upTo >= events.length) {
        throw notFound(`The order has revisions 0 to ${events.length - 1}.`);
      }
      const order = detailsOf(events.slice(0, upTo + 1));
      if (!order) throw notFound(noSuchOrder);
      return sendRepresentation(request, response, await representationOf(revealOwned, order, 'past'));
    }
    const order = await orderNow(orderIdParam(request));
    if (!order || !mayActOn(response, order.customerId)) throw notFound(noSuchOrder);
    sendRepresentation(request, response, await currentRepresentation(order, principalOf(response)));
  });

  router.get('/orders/:orderId/events', ...reader('getOrderEvents'), async (request, response) => {
    const { stored } = await historyFor(request, response);
    const viewer = { userId: principalOf(response).userId, seesEveryActor: ownOnly(response) === undefined };
    await sendRevealedJson(
      reveal,
      request,
      response,
      stored.map((event) => eventResource(event, viewer)),
    );
  });

  return router;
};
