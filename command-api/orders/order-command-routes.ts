import type { Request, Response, Router } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { CatalogStore } from '../../catalog/catalog.ts';
import { orderDecider, type OrderState } from '../../domain/orders/order-decider.ts';
import type { OrderEvent } from '../../domain/orders/order-events.ts';
import { orderStreamName, type OrderCommand } from '../../domain/orders/order.ts';
import { moneyFromDecimal } from '../../domain/shared/money.ts';
import { authenticate, mayActOn, principalOf } from '../../infrastructure/auth/authenticate.ts';
import { authorize } from '../authorize.ts';
import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import type { WriteLimiter } from '../../infrastructure/auth/write-limits.ts';
import { scopeOf } from '../../domain/identity/permissions.ts';
import type { UserStore } from '../../identity/users.ts';
import type { Clock } from '../../infrastructure/clock.ts';
import { createCommandHandler, type Handled } from '../../infrastructure/event-sourcing/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import { acceptBody } from '../../infrastructure/http/accept-body.ts';
import type { Answer } from '../../infrastructure/http/answer.ts';
import type { ConsistencyTokens } from '../../infrastructure/http/consistency-tokens.ts';
import { forbidden, notFound, validationFailed } from '../../infrastructure/http/api-error.ts';
import { uuidParam } from '../../infrastructure/http/path-params.ts';
import {
  asksPreconditions,
  httpDate,
  noneMatchHolds,
  preconditionFailed,
  preconditionsHold,
} from '../../infrastructure/http/representation.ts';
import { createRouter } from '../../infrastructure/http/router.ts';
import { parseInput } from '../../infrastructure/http/validation.ts';
import type { PersonalDataKeyring } from '../../infrastructure/personal-data/keyring.ts';
import { ownedEtag, ownedJsonRepresentation } from '../../infrastructure/personal-data/revealed.ts';
import { orderCodec } from '../../domain/orders/order-codec.ts';
import { orderPersonalData } from '../../domain/orders/personal-data.ts';
import { eventSealer } from '../../infrastructure/personal-data/seal-events.ts';
import { evolveDetails, type OrderDetails } from '../../domain/orders/order-details.ts';
import { currentOrderResource } from '../../domain/orders/order-resource.ts';
import type { Caller } from '../../domain/orders/order-actions.ts';
import { eventMetadataOf } from '../event-metadata.ts';
import type { IdempotencyStore } from '../idempotency/idempotency-store.ts';
import { idempotent } from '../idempotency/idempotent.ts';
import { cancelBody, noBody, paymentBody, shipBody } from './order-schemas.ts';
import { placeOrderCommand, resolveOrderRequest } from './place-order.ts';

export type OrderCommandDeps = {
  eventStore: EventStore;
  authenticator: Authenticator;
  /** The per-user limit on orders placed. */
  writeLimits: Pick<WriteLimiter, 'route' | 'counted'>;
  /** Where order lines find their product: the catalogue snapshot. */
  catalog: Pick<CatalogStore, 'getProduct'>;
  users: UserStore;
  idempotency: IdempotencyStore;
  /** The catalogue currency: what order prices are in. */
  currency: string;
  clock: Clock;
  /**
   * Ids of new orders, payments and events. The services pass UUIDv7s: ordered by time, each new order's
   * entries go at the end of the id indexes (the log's streams, the read models) instead of on a random page.
   */
  newId: () => string;
  /** Seals the customer's personal data in new events; opens it in answers. */
  personalData: Pick<
    PersonalDataKeyring,
    'sealFields' | 'reveal' | 'revealOwned' | 'standingOf' | 'erasedIn'
  >;
  /** Binds each answer's Consistency-Token to the caller. */
  consistencyTokens: Pick<ConsistencyTokens, 'issue'>;
  logger: Logger;
};

const noSuchOrder = 'There is no order with this id.';
const orderIdParam = (request: Request): string => uuidParam(request, 'orderId', noSuchOrder);

const bodyOf = <Schema extends z.ZodType>(schema: Schema, request: Request): z.infer<Schema> =>
  parseInput(schema, request.body ?? {});

type Opening = Pick<PersonalDataKeyring, 'revealOwned' | 'standingOf'>;

/**
 * The order's validators for the caller, from its sealed form and the standing of the customer's key
 * (nothing opened): the same strong ETag as the query side's for the same caller and state (ownedEtag).
 */
const validatorsOf = async (personalData: Opening, details: OrderDetails, caller: Caller) => ({
  etag: ownedEtag(
    JSON.stringify(currentOrderResource(details, caller)),
    await personalData.standingOf(details.customerId),
  ),
  lastModified: httpDate(details.updatedAt),
});

/**
 * The order as sent to the caller (personal fields opened, the caller's actions): the same bytes and ETag
 * as the query side's for the same caller; and the sealed text it was made from.
 */
const representationOf = (personalData: Opening, details: OrderDetails, caller: Caller) =>
  ownedJsonRepresentation(
    personalData.revealOwned,
    details.customerId,
    currentOrderResource(details, caller),
    { lastModified: details.updatedAt },
  );

/**
 * 201 or 200 with the order after the command, its ETag and the Consistency-Token of its last event (the
 * one appended; for a command that appended nothing, such as a payment recorded already, the log's head as
 * read after the order's stream), bound to the caller; and the sealed text, which is what an idempotent
 * request keeps instead of the bytes.
 */
const orderAnswer = async (
  {
    personalData,
    consistencyTokens,
  }: { personalData: Opening; consistencyTokens: Pick<ConsistencyTokens, 'issue'> },
  response: Response,
  handled: Handled<OrderEvent, OrderState, OrderDetails>,
  status: 200 | 201,
): Promise<Answer> => {
  const details = handled.view;
  if (!details || handled.readAt === null) throw new Error('an order command found no order');
  const { representation, sealed } = await representationOf(personalData, details, principalOf(response));
  return {
    status,
    headers: {
      ...(status === 201 ? { Location: `/orders/${details.id}` } : {}),
      ETag: representation.etag,
      'Last-Modified': representation.lastModified!,
      'Consistency-Token': consistencyTokens.issue(handled.readAt, principalOf(response).userId),
      'Content-Type': representation.contentType,
    },
    body: representation.body,
    kept: sealed,
  };
};

/**
 * The command side of orders: POST /orders and every transition. Each request becomes one domain command,
 * decided on the order's stream by the command handler of the kernel.
 */
export const orderCommandRoutes = (deps: OrderCommandDeps): Router => {
  const { clock, newId } = deps;
  const orders = createCommandHandler({
    eventStore: deps.eventStore,
    codec: orderCodec,
    decider: orderDecider,
    // The answer is the order's details, folded once with the decision state.
    view: evolveDetails,
    newId,
    seal: eventSealer(orderPersonalData, deps.personalData),
  });
  const { personalData } = deps;
  const answering = { personalData, consistencyTokens: deps.consistencyTokens };
  const router = createRouter();
  const keyed = idempotent({ store: deps.idempotency, clock, logger: deps.logger, personalData });
  const auth = authenticate(deps.authenticator);

  /**
   * An order beyond the caller's reach for this operation is not found (another customer's, for a
   * customer), or forbidden (for a caller who may read it, such as a customer who is also an auditor); then
   * the request's preconditions (RFC 9110, section 13.2.2: If-Match, else If-Unmodified-Since, then
   * If-None-Match), checked before anything is decided.
   */
  const preconditionOf =
    (request: Request, response: Response) =>
    async (_history: unknown, _state: unknown, details: OrderDetails | null) => {
      if (details === null) throw notFound(noSuchOrder);
      if (!mayActOn(response, details.customerId)) {
        // Hidden from whoever may not see it; whoever may read every order (an auditor) is told plainly.
        if (scopeOf(principalOf(response).roles, 'getOrder') !== 'any') throw notFound(noSuchOrder);
        throw forbidden('You may read this order, but not do this to it: it is not yours.');
      }
      if (!asksPreconditions(request)) return;
      // The order's version, from its sealed form: nothing is opened to compare it.
      const current = await validatorsOf(personalData, details, principalOf(response));
      if (!preconditionsHold(request, current)) {
        throw preconditionFailed(
          'Your If-Match or If-Unmodified-Since does not name the order as you would read it now: it changed since, or the tag is another reader’s (an order’s ETag is its caller’s). Read it again, then retry.',
        );
      }
      if (!noneMatchHolds(request, current.etag)) {
        throw preconditionFailed(
          'The order exists, and If-None-Match asked that it should not (or not in this version).',
        );
      }
    };

  const transition = async (
    request: Request,
    response: Response,
    command: (orderId: string, at: string) => OrderCommand,
  ) => {
    const orderId = orderIdParam(request);
    const at = clock.now().toISOString();
    const handled = await orders.handle(orderStreamName(orderId), command(orderId, at), {
      metadata: eventMetadataOf(response, at),
      precondition: preconditionOf(request, response),
    });
    return orderAnswer(answering, response, handled, 200);
  };

  router.post(
    '/orders',
    auth,
    authorize('placeOrder'),
    // Before the idempotency step: a refused order is not stored as the key's answer. Only orders placed
    // count (below): a 400 or a replayed answer uses up nothing.
    deps.writeLimits.route('orders'),
    acceptBody('json'),
    keyed(async (request, response) => {
      const customerId = principalOf(response).userId;
      const resolved = await resolveOrderRequest(deps, customerId, request.body ?? {});
      if (!resolved.ok) throw validationFailed(resolved.errors);
      const orderId = newId();
      const placedAt = clock.now().toISOString();
      const command = placeOrderCommand(resolved.request, {
        orderId,
        customerId,
        placedAt,
        currency: deps.currency,
      });
      const handled = await orders.handle(orderStreamName(orderId), command, {
        metadata: eventMetadataOf(response, placedAt),
        // The id was just chosen: the stream cannot exist (were it there after all, the append would fail).
        newStream: true,
      });
      await deps.writeLimits.counted('orders', principalOf(response));
      return orderAnswer(answering, response, handled, 201);
    }),
  );

  router.post(
    '/orders/:orderId/confirm',
    auth,
    authorize('confirmOrder'),
    acceptBody('json'),
    keyed((request, response) => {
      bodyOf(noBody, request);
      return transition(request, response, (orderId, confirmedAt) => ({
        type: 'ConfirmOrder',
        data: { orderId, confirmedAt },
      }));
    }),
  );
  router.post(
    '/orders/:orderId/ship',
    auth,
    authorize('shipOrder'),
    acceptBody('json'),
    keyed((request, response) => {
      const { carrier, trackingNumber, trackingUrl } = bodyOf(shipBody, request);
      return transition(request, response, (orderId, shippedAt) => ({
        type: 'ShipOrder',
        data: {
          orderId,
          shippedAt,
          shipment: {
            carrier: carrier ?? null,
            trackingNumber: trackingNumber ?? null,
            trackingUrl: trackingUrl ?? null,
          },
        },
      }));
    }),
  );
  router.post(
    '/orders/:orderId/deliver',
    auth,
    authorize('deliverOrder'),
    acceptBody('json'),
    keyed((request, response) => {
      bodyOf(noBody, request);
      return transition(request, response, (orderId, deliveredAt) => ({
        type: 'DeliverOrder',
        data: { orderId, deliveredAt },
      }));
    }),
  );
  router.post(
    '/orders/:orderId/cancel',
    auth,
    authorize('cancelOrder'),
    acceptBody('json'),
    keyed((request, response) => {
      const { reason } = bodyOf(cancelBody, request);
      return transition(request, response, (orderId, cancelledAt) => ({
        type: 'CancelOrder',
        data: { orderId, reason: reason ?? null, cancelledAt },
      }));
    }),
  );
  router.post(
    '/orders/:orderId/payments',
    auth,
    authorize('recordPayment'),
    acceptBody('json'),
    keyed((request, response) => {
      const { amount, reference } = bodyOf(paymentBody, request);
      return transition(request, response, (orderId, receivedAt) => ({
        type: 'RecordPayment',
        data: {
          orderId,
          paymentId: newId(),
          amount: moneyFromDecimal(amount.amount, amount.currency),
          reference,
          receivedAt,
        },
      }));
    }),
  );

  return router;
};
