import { accessDescription } from '../domain/identity/permissions.ts';
import { z } from 'zod';
import { idempotencyKeyFormat } from '../command-api/idempotency/idempotent.ts';
import { cancelBody, noBody, paymentBody, shipBody } from '../command-api/orders/order-schemas.ts';
import { createOrderBody } from '../command-api/orders/place-order.ts';
import { currentOrderResourceSchema, orderResourceSchema } from '../domain/orders/order-resource.ts';
import type { ApiOperation, ApiResponse } from '../infrastructure/http/openapi/api-operation.ts';
import { auditQuery } from '../query-api/audit/audit-routes.ts';
import { listingQuery, revisionQuery } from '../query-api/orders/order-query-routes.ts';
import { orderCustomersSchema } from '../query-api/orders/order-customers.ts';
import { consistencyTokenHeader, cursorPageOf, pageOf, timestamp } from './common-schemas.ts';

/** The order resource's one schema (domain/orders/order-resource.ts), under the names the document uses. */
export const orderSchema = orderResourceSchema;
export const currentOrderSchema = currentOrderResourceSchema;

export const eventSchema = z
  .strictObject({
    id: z.uuid(),
    type: z.string().meta({ description: 'The domain event’s name, such as OrderPlaced or OrderShipped.' }),
    streamId: z.string(),
    revision: z.int().min(0).meta({ description: 'Position in its stream, from 0.' }),
    version: z.int().min(1).meta({
      description:
        'The version of its type’s data it was written in: data is shown as stored, so an event written before a change of its type keeps its older shape (OrderShipped 1 has no carrier or tracking fields).',
    }),
    position: z
      .string()
      .regex(/^\d+$/)
      .optional()
      .meta({ description: 'Position in the global log (a decimal string: it may exceed 2^53).' }),
    occurredAt: timestamp,
    actor: z
      .strictObject({ userId: z.string().optional(), roles: z.array(z.string()) })
      .nullable()
      .meta({ description: 'Who acted; a customer sees staff by role only; null for the system.' }),
    correlationId: z.string().meta({ description: 'The X-Request-Id of the request that caused it.' }),
    data: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The event as recorded, in the shape of its version; money in minor units.' }),
  })
  .meta({ id: 'Event', description: 'An event of the log, as recorded.' });

const orderPath = z.object({ orderId: z.uuid() });

/** RFC 9110, section 13.2.2: If-Match, else If-Unmodified-Since, then If-None-Match; each failing is a 412. */
const ifMatch = z.object({
  'If-Match': z.string().optional().meta({
    description:
      'The ETag you last read: the command applies only if the order is still that version (412 otherwise).',
  }),
  'If-Unmodified-Since': z.string().optional().meta({
    description:
      'An HTTP-date, used when If-Match is absent: the command applies only if the order has not changed since (its updatedAt; 412 otherwise). A value that is not an HTTP-date is ignored.',
  }),
  'If-None-Match': z.string().optional().meta({
    description:
      '`*`, or a list naming the order’s current ETag, answers 412: the order exists. Other tags are ignored.',
  }),
});

const idempotencyKey = z.object({
  'Idempotency-Key': z.string().regex(idempotencyKeyFormat).optional().meta({
    description:
      'Retrying with the same key and body replays the first answer instead of acting twice. Keys are per user and expire after 24 h.',
  }),
});

const orderAfterCommand = (description: string): ApiResponse => ({
  description,
  body: currentOrderSchema,
  headers: { ETag: true, 'Last-Modified': true, 'Consistency-Token': true, 'Cache-Control': 'no-store' },
});

const commandProblems = {
  'not-found': 'There is no such order, or it is another customer’s.',
  'invalid-state-transition':
    'The lifecycle forbids this move from the current status (currentStatus and attemptedAction say which).',
  'precondition-failed':
    'If-Match names a version the order no longer has, it changed after If-Unmodified-Since, or If-None-Match named it. Nothing was appended.',
} as const;

const staffOnly = { forbidden: 'The caller is not staff (or admin).' } as const;

/** What an Idempotency-Key adds to a command's problems. */
const keyProblems = {
  conflict: 'A request with this Idempotency-Key is still being processed.',
  'idempotency-key-mismatch': 'This Idempotency-Key was used with a different body.',
} as const;

const transition = (action: 'confirm' | 'ship' | 'deliver', from: string, to: string): ApiOperation => ({
  method: 'post',
  path: `/orders/{orderId}/${action}`,
  operationId: `${action}Order`,
  tag: 'orders',
  summary: `${action[0]!.toUpperCase()}${action.slice(1)} an order (${from} → ${to})`,
  access: accessDescription(`${action}Order`),
  params: orderPath,
  headers: ifMatch.extend(idempotencyKey.shape),
  ...(action === 'ship'
    ? {
        description:
          'Optionally with how the shipment can be followed: `carrier`, `trackingNumber`, `trackingUrl` (https), each at most 200 characters. The order then carries `shipment`.',
        body: { schema: shipBody, required: false },
      }
    : { body: { schema: noBody, required: false } }),
  responses: { 200: orderAfterCommand(`The order, now ${to}.`) },
  problems: { ...staffOnly, ...commandProblems, ...keyProblems },
});

const readProblems = (what: string) =>
  ({
    forbidden: 'The caller has no role that reads orders.',
    'service-unavailable': 'Consistency-Token was sent and the read models did not reach it in time.',
    'not-found': what,
  }) as const;

export const orderOperations: ApiOperation[] = [
  {
    method: 'post',
    path: '/orders',
    operationId: 'placeOrder',
    tag: 'orders',
    summary: 'Place an order',
    description:
      'Prices and product names come from the catalogue at this moment; the address is copied from the caller’s stored address. Totals are the sum of quantity × unit price. A line asking for more than the product’s stock at this moment (GET /products/{id}/stock) is refused with a 400 on `items[i].quantity` naming what is available; orders do not reserve stock.',
    access: accessDescription('placeOrder'),
    headers: idempotencyKey,
    body: { schema: createOrderBody },
    responses: {
      201: {
        ...orderAfterCommand('The order, pending.'),
        headers: {
          ETag: true,
          'Last-Modified': true,
          'Consistency-Token': true,
          'Cache-Control': 'no-store',
          Location: true,
        },
      },
    },
    problems: {
      forbidden: 'The caller’s role does not place orders (auditors).',
      conflict: 'A request with this Idempotency-Key is still being processed.',
      'idempotency-key-mismatch': 'This Idempotency-Key was used with a different body.',
      'rate-limited':
        'The user placed too many orders in the window (USER_WRITE_LIMIT_ORDERS, or STAFF_WRITE_LIMIT_ORDERS ' +
        'for staff and admins); nothing was placed. See Retry-After.',
    },
  },
  {
    method: 'get',
    path: '/orders',
    operationId: 'listOrders',
    tag: 'orders',
    summary: 'List orders',
    description:
      'Customers see their own orders, staff, auditors and admins all of them, newest first. `?page=` gives the page variant of the envelope, `?cursor=` the cursor variant (stable under concurrent inserts).',
    access: accessDescription('listOrders'),
    query: listingQuery,
    headers: consistencyTokenHeader,
    responses: {
      200: {
        description: 'A page of orders.',
        body: z.union([
          pageOf(currentOrderSchema, 'OrderPage', { customers: orderCustomersSchema }),
          cursorPageOf(currentOrderSchema, 'OrderCursorPage', { customers: orderCustomersSchema }),
        ]),
        headers: { ETag: true, 'Cache-Control': 'private, no-cache' },
      },
      304: { description: 'Not modified: the If-None-Match ETag is current.', headers: { ETag: true } },
    },
    problems: {
      'validation-failed': 'A query parameter is invalid, or page and cursor were both given.',
      ...readProblems('Never: an empty listing is an empty page.'),
    },
  },
  {
    method: 'get',
    path: '/orders/{orderId}',
    operationId: 'getOrder',
    tag: 'orders',
    summary: 'Read an order',
    description: `From the read model. With \`?revision=N\` (${accessDescription('getOrderAtRevision')}), the order as it was after event N of its history, replayed from the log.`,
    access: accessDescription('getOrder'),
    params: orderPath,
    query: z.object({
      revision: revisionQuery.optional().meta({
        description: 'A stream revision, from 0.',
        type: 'integer',
        minimum: 0,
        maximum: 999_999_999,
      }),
    }),
    headers: consistencyTokenHeader,
    responses: {
      200: {
        description:
          'The order as it is now, with the caller’s `actions`; with `?revision=N`, as it was then, without them (nothing can be done to a past state). Its ETag is made from the order as stored (its personal fields sealed) and whether the customer’s personal data was erased, not from the bytes sent: the same as on the command’s answer for that state.',
        body: z.union([currentOrderSchema, orderSchema]),
        headers: { ETag: true, 'Last-Modified': true, 'Cache-Control': 'private, no-cache' },
      },
      304: { description: 'Not modified: the If-None-Match ETag is current.', headers: { ETag: true } },
    },
    problems: {
      'validation-failed': 'revision is not a whole number.',
      ...readProblems('There is no such order, it is another customer’s, or it has no such revision.'),
      forbidden: 'A customer asked for a past revision, or the caller has no role that reads orders.',
    },
  },
  {
    method: 'get',
    path: '/orders/{orderId}/events',
    operationId: 'getOrderEvents',
    tag: 'orders',
    summary: 'Read an order’s event history',
    description: 'Every event of the order’s stream, oldest first, as recorded.',
    access: accessDescription('getOrderEvents'),
    params: orderPath,
    headers: consistencyTokenHeader,
    responses: {
      200: {
        description: 'The history.',
        body: z.array(eventSchema),
        headers: { ETag: true, 'Cache-Control': 'private, no-cache' },
      },
      304: { description: 'Not modified: the If-None-Match ETag is current.', headers: { ETag: true } },
    },
    problems: readProblems('There is no such order, or it is another customer’s.'),
  },
  transition('confirm', 'pending', 'confirmed'),
  transition('ship', 'confirmed', 'shipped'),
  transition('deliver', 'shipped', 'delivered'),
  {
    method: 'post',
    path: '/orders/{orderId}/cancel',
    operationId: 'cancelOrder',
    tag: 'orders',
    summary: 'Cancel an order (pending or confirmed → cancelled)',
    description:
      'Paid or not: a cancelled order that received payments carries `refundDue`, what was paid, owed back (also in the order.status_changed webhook’s order).',
    access: accessDescription('cancelOrder'),
    params: orderPath,
    headers: ifMatch.extend(idempotencyKey.shape),
    body: { schema: cancelBody, required: false },
    responses: { 200: orderAfterCommand('The order, now cancelled.') },
    problems: {
      forbidden: 'The caller’s role does not cancel orders (auditors).',
      ...commandProblems,
      'idempotency-key-mismatch': keyProblems['idempotency-key-mismatch'],
      conflict:
        'The order’s customer was erased: a reason, free text about the order, cannot be kept. Cancel without one. Or a request with this Idempotency-Key is still being processed.',
    },
  },
  {
    method: 'post',
    path: '/orders/{orderId}/payments',
    operationId: 'recordPayment',
    tag: 'orders',
    summary: 'Record a payment',
    description:
      'Emits payment.received. The currency must be the order’s; a cancelled order takes no payment (409). A `reference` names one payment of the order: sent again with the same amount (a retry, a second notification), it is the payment recorded already, answered 200 with the order as it is, nothing recorded and no webhook sent, whatever the order’s status since; with another amount, 409 `conflict` naming the `reference` and its `recordedAmount`.',
    access: accessDescription('recordPayment'),
    params: orderPath,
    headers: ifMatch.extend(idempotencyKey.shape),
    body: { schema: paymentBody },
    responses: {
      200: orderAfterCommand(
        'The order, with the payment (recorded now, or before under the same reference).',
      ),
    },
    problems: {
      ...staffOnly,
      ...commandProblems,
      conflict:
        'The reference is recorded on this order already with another amount (`reference` and `recordedAmount` say which), or a request with this Idempotency-Key is still being processed.',
      'idempotency-key-mismatch': 'This Idempotency-Key was used with a different body.',
    },
  },
  {
    method: 'get',
    path: '/audit/events',
    operationId: 'listAuditEvents',
    tag: 'orders',
    summary: 'Read the global event log',
    description:
      'Every event, in log order, in the cursor envelope: `after` pages forward (exclusive), `before` back. ' +
      'Personal fields (an order’s shipping address, note and cancellation reason) are opened, or ' +
      '`"[erased]"` once their customer is erased; webhook secrets read `(sealed; not shown)`; a webhook ' +
      'URL is shown whole to admins and as its origin to auditors (a path or a query may be a credential).',
    access: accessDescription('listAuditEvents'),
    query: auditQuery,
    responses: {
      200: {
        description: 'A page of the log.',
        body: cursorPageOf(eventSchema, 'EventCursorPage'),
        headers: { ETag: true, 'Cache-Control': 'private, no-cache' },
      },
      304: { description: 'Not modified: the If-None-Match ETag is current.', headers: { ETag: true } },
    },
    problems: {
      'validation-failed':
        'A query parameter is invalid, after or before names a position the log never issued, or after and before were both given.',
      forbidden: 'The caller is not an auditor or admin.',
    },
  },
];
