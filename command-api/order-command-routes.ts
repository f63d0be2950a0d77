import type { Request, Response, Router } from 'express';
import { createRouter } from '../infrastructure/http/router.ts';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { CatalogStore } from '../catalog/catalog.ts';
import { moneyFromDecimal } from '../domain/money.ts';
import type { Order, OrderCommand } from '../domain/order/order.ts';
import { authenticate, authorize, mayActOn, principalOf } from '../identity/authenticate.ts';
import type { Authenticator } from '../identity/authenticator.ts';
import { scopeOf } from '../identity/permissions.ts';
import type { UserStore } from '../identity/users.ts';
import type { Clock } from '../infrastructure/clock.ts';
import type { EventMetadata } from '../infrastructure/event-store/event-store.ts';
import { acceptBody } from '../infrastructure/http/accept-body.ts';
import { forbidden, notFound } from '../infrastructure/http/api-error.ts';
import {
  noneMatchHolds,
  preconditionFailed,
  preconditionsHold,
} from '../infrastructure/http/representation.ts';
import { requestIdOf } from '../infrastructure/http/request-id.ts';
import { uuidParam } from '../infrastructure/http/path-params.ts';
import { parseInput } from '../infrastructure/http/validation.ts';
import { orderRepresentation } from '../projections/order-view.ts';
import type { IdempotencyStore } from './idempotency.ts';
import { idempotent } from './idempotent.ts';
import type { CommandResult, OrderCommandHandler } from './order-command-handler.ts';
import { cancelBody, noBody, paymentBody } from './order-schemas.ts';
import { placeOrderCommand } from './place-order.ts';

export type OrderCommandDeps = {
  handler: OrderCommandHandler;
  authenticator: Authenticator;
  catalog: CatalogStore;
  users: UserStore;
  idempotency: IdempotencyStore;
  /** The catalogue currency: what order prices are in. */
  currency: string;
  clock: Clock;
  /**
   * Ids of new orders and payments. The services pass UUIDv7s: ordered by time, each new order's entries
   * go at the end of the id indexes (the log's streams, the read models) instead of on a random page.
   */
  newId: () => string;
  logger: Logger;
};

const noSuchOrder = 'There is no order with this id.';
const orderIdParam = (request: Request): string => uuidParam(request, 'orderId', noSuchOrder);

const bodyOf = <Schema extends z.ZodType>(schema: Schema, request: Request): z.infer<Schema> =>
  parseInput(schema, request.body ?? {});

/** 201 or 200 with the order after the command, its ETag and the Consistency-Token of its last event. */
const sendResult = (response: Response, result: CommandResult, status: 200 | 201) => {
  const representation = orderRepresentation(result.order);
  if (status === 201) response.location(`/orders/${result.order.id}`);
  response
    .status(status)
    .set({
      ETag: representation.etag,
      'Last-Modified': representation.lastModified,
      'Consistency-Token': result.position.toString(),
      'Content-Type': representation.contentType,
    })
    .end(representation.body);
};

/**
 * The command side of orders (decisions.md, Orders): POST /orders and every transition. Each request
 * becomes one domain command, decided on the order's stream by the command handler.
 */
export const orderCommandRoutes = (deps: OrderCommandDeps): Router => {
  const { handler, clock, newId } = deps;
  const router = createRouter();
  const keyed = idempotent({ store: deps.idempotency, clock, logger: deps.logger });
  const auth = authenticate(deps.authenticator);

  const metadataOf = (response: Response, occurredAt: string): EventMetadata => {
    const { userId, roles } = principalOf(response);
    const requestId = requestIdOf(response);
    return { actor: { userId, roles }, correlationId: requestId, causationId: requestId, occurredAt };
  };

  /**
   * An order beyond the caller's reach for this operation is not found (another customer's, for a
   * customer), or forbidden (for a caller who may read it, such as a customer who is also an auditor); then the request's preconditions (RFC 9110, section 13.2.2: If-Match, else If-Unmodified-Since,
   * then If-None-Match), checked before anything is decided.
   */
  const preconditionOf = (request: Request, response: Response) => (state: Order) => {
    if (state.status === 'none') throw notFound(noSuchOrder);
    if (!mayActOn(response, state.customerId)) {
      // Hidden from whoever may not see it; whoever may read every order (an auditor) is told plainly.
      if (scopeOf(principalOf(response).roles, 'getOrder') !== 'any') throw notFound(noSuchOrder);
      throw forbidden('You may read this order, but not do this to it: it is not yours.');
    }
    const current = orderRepresentation(state);
    if (!preconditionsHold(request, current)) {
      throw preconditionFailed(
        'The order changed since the version your If-Match or If-Unmodified-Since names. Read it again, then retry.',
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
    const result = await handler.handle(orderId, command(orderId, at), {
      metadata: metadataOf(response, at),
      precondition: preconditionOf(request, response),
    });
    sendResult(response, result, 200);
  };

  router.post(
    '/orders',
    auth,
    authorize('placeOrder'),
    acceptBody('json'),
    keyed,
    async (request, response) => {
      const principal = principalOf(response);
      const orderId = newId();
      const placedAt = clock.now().toISOString();
      const command = await placeOrderCommand(deps, {
        body: request.body,
        customerId: principal.userId,
        orderId,
        placedAt,
      });
      const result = await handler.handle(orderId, command, { metadata: metadataOf(response, placedAt) });
      sendResult(response, result, 201);
    },
  );

  router.post(
    '/orders/:orderId/confirm',
    auth,
    authorize('confirmOrder'),
    acceptBody('json'),
    (request, response) => {
      bodyOf(noBody, request);
      return transition(request, response, (orderId, confirmedAt) => ({
        type: 'ConfirmOrder',
        data: { orderId, confirmedAt },
      }));
    },
  );
  router.post(
    '/orders/:orderId/ship',
    auth,
    authorize('shipOrder'),
    acceptBody('json'),
    (request, response) => {
      bodyOf(noBody, request);
      return transition(request, response, (orderId, shippedAt) => ({
        type: 'ShipOrder',
        data: { orderId, shippedAt },
      }));
    },
  );
  router.post(
    '/orders/:orderId/deliver',
    auth,
    authorize('deliverOrder'),
    acceptBody('json'),
    (request, response) => {
      bodyOf(noBody, request);
      return transition(request, response, (orderId, deliveredAt) => ({
        type: 'DeliverOrder',
        data: { orderId, deliveredAt },
      }));
    },
  );
  router.post(
    '/orders/:orderId/cancel',
    auth,
    authorize('cancelOrder'),
    acceptBody('json'),
    (request, response) => {
      const { reason } = bodyOf(cancelBody, request);
      return transition(request, response, (orderId, cancelledAt) => ({
        type: 'CancelOrder',
        data: { orderId, reason: reason ?? null, cancelledAt },
      }));
    },
  );
  router.post(
    '/orders/:orderId/payments',
    auth,
    authorize('recordPayment'),
    acceptBody('json'),
    keyed,
    (request, response) => {
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
    },
  );

  return router;
};
