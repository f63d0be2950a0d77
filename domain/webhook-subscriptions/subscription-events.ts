import { z } from 'zod';
import type { EventCatalog } from '../shared/event-versions.ts';
import { testEventTypes, webhookEventKinds } from './subscription.ts';

// The facts in a subscription's stream, with the schema of every version each has had.

const timestamp = z.iso.datetime();
const kinds = z.array(z.enum(webhookEventKinds));

const registeredV1 = z.strictObject({
  subscriptionId: z.string(),
  url: z.string(),
  events: kinds,
  description: z.string().nullable(),
  /** Sealed by the service's key: opaque here. */
  secret: z.string(),
  registeredAt: timestamp,
});
/** Only the fields that changed. */
const changedV1 = z.strictObject({
  subscriptionId: z.string(),
  changes: z.strictObject({
    url: z.string().optional(),
    events: kinds.optional(),
    description: z.string().nullable().optional(),
    active: z.boolean().optional(),
  }),
  changedAt: timestamp,
});
const secretRotatedV1 = z.strictObject({
  subscriptionId: z.string(),
  secret: z.string(),
  previousSecretExpiresAt: timestamp,
  rotatedAt: timestamp,
});
const disabledV1 = z.strictObject({ subscriptionId: z.string(), reason: z.string(), disabledAt: timestamp });
const removedV1 = z.strictObject({ subscriptionId: z.string(), removedAt: timestamp });
const testRequestedV1 = z.strictObject({ subscriptionId: z.string(), requestedAt: timestamp });
/** Version 2: which event type the admin asked an example of (`webhook.test`, or any public kind). */
const testRequestedV2 = testRequestedV1.extend({ eventType: z.enum(testEventTypes) });
/**
 * A webhook URL beyond its origin (a path, a query) may be a credential: from version 2 on it is sealed by
 * the service's key like the signing secret, beside its origin in the clear (what auditors and exports
 * see). A version 1 event holds the whole URL as a string; admins alone see it whole.
 */
export const sealedWebhookUrl = z.strictObject({ origin: z.string(), sealed: z.string() });
export type SealedWebhookUrl = z.infer<typeof sealedWebhookUrl>;
const webhookUrl = z.union([z.string(), sealedWebhookUrl]);
/** Version 2: the URL sealed (a string only in what version 1 wrote). */
const registeredV2 = registeredV1.extend({ url: webhookUrl });
const changedV2 = changedV1.extend({
  changes: changedV1.shape.changes.extend({ url: webhookUrl.optional() }),
});
const redeliveryRequestedV1 = z.strictObject({
  subscriptionId: z.string(),
  deliveryId: z.string(),
  requestedAt: timestamp,
});

export type SubscriptionRegistered = {
  type: 'WebhookSubscriptionRegistered';
  data: z.infer<typeof registeredV2>;
};
export type SubscriptionChanged = { type: 'WebhookSubscriptionChanged'; data: z.infer<typeof changedV2> };
export type SecretRotated = { type: 'WebhookSecretRotated'; data: z.infer<typeof secretRotatedV1> };
export type SubscriptionDisabled = { type: 'WebhookSubscriptionDisabled'; data: z.infer<typeof disabledV1> };
export type SubscriptionRemoved = { type: 'WebhookSubscriptionRemoved'; data: z.infer<typeof removedV1> };
export type TestDeliveryRequested = { type: 'WebhookTestRequested'; data: z.infer<typeof testRequestedV2> };
export type RedeliveryRequested = {
  type: 'WebhookRedeliveryRequested';
  data: z.infer<typeof redeliveryRequestedV1>;
};

export type SubscriptionEvent =
  | SubscriptionRegistered
  | SubscriptionChanged
  | SecretRotated
  | SubscriptionDisabled
  | SubscriptionRemoved
  | TestDeliveryRequested
  | RedeliveryRequested;

/** v1 -> v2 of both: a URL written before URLs were sealed stays the string it was. */
export const urlAsWritten = <T>(v1: T): T => v1;

/** v1 -> v2: before an admin could choose, a test event was always `webhook.test`. */
export const testOfWebhookTest = (v1: z.infer<typeof testRequestedV1>): z.infer<typeof testRequestedV2> => ({
  ...v1,
  eventType: 'webhook.test',
});

/** Every subscription event, every version: what the event codec writes and reads them with. */
export const subscriptionEvents: EventCatalog<SubscriptionEvent> = {
  WebhookSubscriptionRegistered: { schemas: [registeredV1, registeredV2], upcast: [urlAsWritten] },
  WebhookSubscriptionChanged: { schemas: [changedV1, changedV2], upcast: [urlAsWritten] },
  WebhookSecretRotated: { schemas: [secretRotatedV1], upcast: [] },
  WebhookSubscriptionDisabled: { schemas: [disabledV1], upcast: [] },
  WebhookSubscriptionRemoved: { schemas: [removedV1], upcast: [] },
  WebhookTestRequested: { schemas: [testRequestedV1, testRequestedV2], upcast: [testOfWebhookTest] },
  WebhookRedeliveryRequested: { schemas: [redeliveryRequestedV1], upcast: [] },
};
