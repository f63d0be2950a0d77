import { accessDescription } from '../domain/identity/permissions.ts';
import { z } from 'zod';
import { noBody } from '../command-api/orders/order-schemas.ts';
import {
  changeWebhookBody,
  recoverDeliveriesBody,
  recoveryLimit,
  registerWebhookBody,
  testWebhookBody,
} from '../command-api/webhook-subscriptions/subscription-schemas.ts';
import { testEventTypes, webhookEventKinds } from '../domain/webhook-subscriptions/subscription.ts';
import type { ApiOperation, ApiResponse } from '../infrastructure/http/openapi/api-operation.ts';
import {
  deliveriesQuery,
  pendingDeliveriesQuery,
} from '../query-api/webhook-subscriptions/subscription-query-routes.ts';
import { statsOverAttempts } from '../webhooks/deliveries/delivery-log.ts';
import { pendingDeliveryResourceSchema } from '../webhooks/deliveries/pending-delivery-schema.ts';
import { consistencyTokenHeader, cursorPageOf, pageOf, timestamp } from './common-schemas.ts';

const subscriptionMembers = {
  id: z.uuid(),
  url: z.url().meta({
    description:
      'Where events are delivered, whole (admins only). Its path and query may be a credential: the log ' +
      'keeps it sealed like the secret, and the audit log shows auditors its origin only.',
  }),
  events: z.array(z.enum(webhookEventKinds)),
  description: z.string().nullable(),
  active: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .meta({ description: 'Why the service disabled it (a receiver answered 410 Gone); null otherwise.' }),
  createdAt: timestamp,
  updatedAt: timestamp,
};

const subscription = z.strictObject(subscriptionMembers).meta({
  id: 'WebhookSubscription',
  description: 'A webhook subscription. Its secret is never shown again.',
});

const attemptOutcome = z.enum([
  'delivered',
  'failed',
  'timeout',
  'network-error',
  'refused',
  'gone',
  'cancelled',
]);

const deliveryStats = z
  .strictObject({
    attempts: z
      .int()
      .min(0)
      .max(statsOverAttempts)
      .meta({
        description: `How many attempts these stats are over: the latest ${statsOverAttempts}, or all when fewer.`,
      }),
    delivered: z.int().min(0).meta({ description: 'How many of them delivered (a 2xx in time).' }),
    successRate: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .meta({ description: 'delivered / attempts, from 0 to 1; null before the first attempt.' }),
    lastOutcome: attemptOutcome
      .nullable()
      .meta({ description: 'The newest attempt’s outcome; null before any.' }),
    lastAttemptAt: timestamp
      .nullable()
      .meta({ description: 'When the newest attempt was made; null before any.' }),
  })
  .meta({
    id: 'WebhookDeliveryStats',
    description: `How the subscription’s latest ${statsOverAttempts} delivery attempts went (of any event type, test events and retries included; a cancelled attempt, made while the subscription was inactive, counts as not delivered), so that a failing endpoint stands out. Computed on each read from the delivery log.`,
  });

/** A subscription as GET /webhooks and GET /webhooks/{id} answer it: with its delivery stats. */
const subscriptionRead = subscription.extend({ deliveryStats }).meta({
  id: 'WebhookSubscriptionWithStats',
  description:
    'A webhook subscription, with how its latest deliveries went. Its secret is never shown again.',
});

const secret = z
  .string()
  .regex(/^whsec_/)
  .meta({ description: 'The signing secret (Standard Webhooks, whsec_ prefix). Shown only in this answer.' });

const deliveryAttempt = z
  .strictObject({
    id: z.string().meta({ description: 'Increases with each attempt.' }),
    deliveryId: z.uuid().meta({ description: 'The delivery, for POST …/deliveries/{deliveryId}/retry.' }),
    subscriptionId: z.uuid(),
    eventId: z.string().meta({ description: 'The event’s id: the webhook-id header.' }),
    eventType: z.string(),
    attempt: z.int().min(1).meta({
      description:
        'The delivery’s attempts numbered from 1, counting on across an admin’s retries (a retry restarts the retry schedule, not the count).',
    }),
    attemptedAt: timestamp,
    durationMs: z.number().min(0),
    statusCode: z.int().nullable().meta({ description: 'The receiver’s answer; null when none came.' }),
    outcome: attemptOutcome,
    error: z.string().nullable(),
    responseBody: z.string().nullable().meta({ description: 'The start of the receiver’s answer.' }),
    responseBodyTruncated: z.boolean(),
    nextAttemptAt: timestamp.nullable(),
    deadLettered: z
      .boolean()
      .meta({ description: 'The retry schedule ran out: the delivery waits for an admin’s retry.' }),
    request: z
      .strictObject({
        headers: z.record(z.string(), z.string()).meta({
          description:
            'The headers sent, names lower-cased. webhook-signature keeps each signature’s version and first 8 characters, then …: enough to tell signatures apart, not to forge one.',
        }),
        body: z.unknown().meta({
          description:
            'The JSON body sent (the event’s public form), its personal fields as readable now: "[erased]" once the customer was erased.',
        }),
      })
      .optional()
      .meta({
        description:
          'The request that was sent. Absent from an attempt recorded before requests were kept (before this release), and from a cancelled attempt, which sent nothing.',
      }),
  })
  .meta({ id: 'DeliveryAttempt' });

const subscriptionPath = z.object({ subscriptionId: z.uuid() });
const adminProblems = { forbidden: 'The caller is not an admin.' } as const;
const noSuchSubscription = 'There is no subscription with this id (or it was removed).';

const withToken = (description: string, body: z.ZodType, status = 200): Record<number, ApiResponse> => ({
  [status]: { description, body, headers: { 'Consistency-Token': true, 'Cache-Control': 'no-store' } },
});

const adminRead = (description: string, body: z.ZodType): Record<number, ApiResponse> => ({
  200: { description, body, headers: { ETag: true, 'Cache-Control': 'private, no-cache' } },
  304: { description: 'Not modified.', headers: { ETag: true } },
});

const readProblems = {
  ...adminProblems,
  'service-unavailable': 'Consistency-Token was sent and the read models did not reach it in time.',
} as const;

export const webhookOperations: ApiOperation[] = [
  {
    method: 'post',
    path: '/webhooks',
    operationId: 'registerWebhook',
    tag: 'webhooks',
    summary: 'Subscribe a URL to event kinds',
    description:
      'Deliveries follow Standard Webhooks: headers webhook-id, webhook-timestamp and webhook-signature (v1, HMAC-SHA256 with the secret), body {type, timestamp, data}. Any 2xx within 10 s is success; anything else is retried with backoff, then dead-lettered; 410 Gone disables the subscription. URLs that resolve to internal addresses are refused.',
    access: accessDescription('registerWebhook'),
    body: { schema: registerWebhookBody },
    responses: {
      201: {
        description: 'The subscription, with its secret (shown only here).',
        body: subscription.extend({ secret }).meta({ id: 'WebhookSubscriptionWithSecret' }),
        headers: { Location: true, 'Consistency-Token': true, 'Cache-Control': 'no-store' },
      },
    },
    problems: adminProblems,
  },
  {
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    tag: 'webhooks',
    summary: 'List the subscriptions',
    access: accessDescription('listWebhooks'),
    headers: consistencyTokenHeader,
    responses: adminRead(
      'Every subscription, without secrets, each with its delivery stats.',
      z.array(subscriptionRead),
    ),
    problems: readProblems,
  },
  {
    method: 'get',
    path: '/webhooks/{subscriptionId}',
    operationId: 'getWebhook',
    tag: 'webhooks',
    summary: 'Read a subscription',
    access: accessDescription('getWebhook'),
    params: subscriptionPath,
    headers: consistencyTokenHeader,
    responses: adminRead('The subscription, without its secret, with its delivery stats.', subscriptionRead),
    problems: { ...readProblems, 'not-found': noSuchSubscription },
  },
  {
    method: 'patch',
    path: '/webhooks/{subscriptionId}',
    operationId: 'changeWebhook',
    tag: 'webhooks',
    summary: 'Change a subscription’s url, events, description or active flag',
    access: accessDescription('changeWebhook'),
    params: subscriptionPath,
    // One component for both media types: a client generator makes one model of it, not two of one name.
    body: { schema: changeWebhookBody.meta({ id: 'WebhookChanges' }), media: ['merge-patch', 'json'] },
    responses: {
      200: {
        description:
          'The subscription as changed. Consistency-Token is absent when the PATCH named only values the subscription already had: nothing was appended.',
        body: subscription,
        headers: { 'Cache-Control': 'no-store' },
      },
    },
    problems: { ...adminProblems, 'not-found': noSuchSubscription },
  },
  {
    method: 'delete',
    path: '/webhooks/{subscriptionId}',
    operationId: 'removeWebhook',
    tag: 'webhooks',
    summary: 'Remove a subscription',
    access: accessDescription('removeWebhook'),
    params: subscriptionPath,
    responses: {
      204: { description: 'Removed.', headers: { 'Consistency-Token': true, 'Cache-Control': 'no-store' } },
    },
    problems: { ...adminProblems, 'not-found': noSuchSubscription },
  },
  {
    method: 'post',
    path: '/webhooks/{subscriptionId}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tag: 'webhooks',
    summary: 'Rotate the signing secret',
    description: 'The previous secret keeps signing beside the new one for 24 hours.',
    access: accessDescription('rotateWebhookSecret'),
    params: subscriptionPath,
    body: { schema: noBody, required: false },
    responses: withToken(
      'The subscription with its new secret (shown only here).',
      subscription
        .extend({ secret, previousSecretExpiresAt: timestamp })
        .meta({ id: 'WebhookSubscriptionWithNewSecret' }),
    ),
    problems: { ...adminProblems, 'not-found': noSuchSubscription },
  },
  {
    method: 'post',
    path: '/webhooks/{subscriptionId}/test',
    operationId: 'testWebhook',
    tag: 'webhooks',
    summary: 'Send a test event, of any event type',
    description:
      'Sends the subscription one test event: `webhook.test`, or with `eventType` an example of any type of the webhooks section, built from the fixed example order (docs/webhooks.md), never a customer’s. A type the subscription does not take is sent all the same: the admin asked for it by name. The body is `{type, timestamp, data, "test": true}` in that type’s shape, signed, retried and logged like any delivery (its attempts are under …/deliveries, of that event type, with the request’s event id as webhook-id). An inactive subscription receives nothing: the delivery is cancelled.',
    access: accessDescription('testWebhook'),
    params: subscriptionPath,
    body: { schema: testWebhookBody, required: false },
    responses: withToken(
      'Accepted: the dispatcher sends it shortly.',
      z.strictObject({
        subscriptionId: z.uuid(),
        type: z.enum(testEventTypes).meta({ description: 'The event type of the test event sent.' }),
        status: z.literal('requested'),
      }),
      202,
    ),
    problems: {
      ...adminProblems,
      'validation-failed': `eventType is none of ${testEventTypes.join(', ')}, or the body has another member.`,
      'not-found': noSuchSubscription,
    },
  },
  {
    method: 'get',
    path: '/webhooks/{subscriptionId}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'webhooks',
    summary: 'The delivery attempts of a subscription, newest first',
    access: accessDescription('listWebhookDeliveries'),
    params: subscriptionPath,
    query: deliveriesQuery,
    headers: consistencyTokenHeader,
    responses: adminRead(
      'A page of attempts.',
      z.union([
        pageOf(deliveryAttempt, 'DeliveryAttemptPage'),
        cursorPageOf(deliveryAttempt, 'DeliveryAttemptCursorPage'),
      ]),
    ),
    problems: {
      ...readProblems,
      'validation-failed': 'A query parameter is invalid, or page and cursor were both given.',
      'not-found': noSuchSubscription,
    },
  },
  {
    method: 'get',
    path: '/webhooks/{subscriptionId}/deliveries/pending',
    operationId: 'listPendingWebhookDeliveries',
    tag: 'webhooks',
    summary: 'The deliveries not settled yet, oldest first: scheduled, retrying, or waiting behind another',
    description:
      'The dispatcher’s retry state as it is now: every delivery accepted for the subscription and not yet delivered, dead-lettered or cancelled, including those queued behind a failing delivery of the same order, which have no attempt to show under …/deliveries. Read from the retry state at each request; a Consistency-Token waits for the subscription itself.',
    access: accessDescription('listPendingWebhookDeliveries'),
    params: subscriptionPath,
    query: pendingDeliveriesQuery,
    headers: consistencyTokenHeader,
    responses: adminRead(
      'The oldest pending deliveries; `meta.more` says whether there are others after them.',
      z
        .strictObject({
          meta: z.strictObject({ limit: z.int().min(1).max(100), more: z.boolean() }),
          data: z.array(pendingDeliveryResourceSchema),
        })
        .meta({ id: 'PendingDeliveryList' }),
    ),
    problems: {
      ...readProblems,
      'validation-failed': 'limit is not a whole number from 1 to 100, or the query has another parameter.',
      'not-found': noSuchSubscription,
    },
  },
  {
    method: 'post',
    path: '/webhooks/{subscriptionId}/deliveries/{deliveryId}/retry',
    operationId: 'retryWebhookDelivery',
    tag: 'webhooks',
    summary: 'Deliver again',
    description:
      'For a dead-lettered delivery, or any other: it is sent again now, with the same webhook-id.',
    access: accessDescription('retryWebhookDelivery'),
    params: subscriptionPath.extend({ deliveryId: z.uuid() }),
    body: { schema: noBody, required: false },
    responses: withToken(
      'Accepted: the dispatcher sends it shortly.',
      z.strictObject({ subscriptionId: z.uuid(), deliveryId: z.uuid(), status: z.literal('requested') }),
      202,
    ),
    problems: {
      ...adminProblems,
      'not-found': 'There is no such subscription, or no such delivery of it.',
    },
  },
  {
    method: 'post',
    path: '/webhooks/{subscriptionId}/deliveries/recover',
    operationId: 'recoverWebhookDeliveries',
    tag: 'webhooks',
    summary: 'Deliver again every dead-lettered delivery since a time',
    description: `Each dead-lettered delivery of the subscription accepted at or after \`since\` (oldest first, at most ${recoveryLimit}; \`more\` says whether others are left: ask again) is retried as POST …/retry does, with the same webhook-id. A delivery retried is pending, no longer dead-lettered: asking again does not schedule it twice.`,
    access: accessDescription('retryWebhookDelivery'),
    params: subscriptionPath,
    body: { schema: recoverDeliveriesBody },
    responses: {
      202: {
        description:
          'Accepted: the dispatcher sends them shortly. With a Consistency-Token when at least one was scheduled (when none was, nothing was recorded).',
        body: z.strictObject({
          subscriptionId: z.uuid(),
          since: z.iso.datetime(),
          scheduled: z.int().min(0).meta({ description: 'How many deliveries were scheduled again.' }),
          more: z.boolean().meta({ description: 'More dead-lettered deliveries are left beyond the limit.' }),
          status: z.literal('requested'),
        }),
        headers: { 'Cache-Control': 'no-store' },
      },
    },
    problems: {
      ...adminProblems,
      'validation-failed': 'since is not a date-time with its offset.',
      'not-found': noSuchSubscription,
    },
  },
];
