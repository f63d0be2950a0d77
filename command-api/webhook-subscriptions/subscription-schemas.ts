import { z } from 'zod';
import { testEventTypes, webhookEventKinds } from '../../domain/webhook-subscriptions/subscription.ts';

export const webhookLimits = { maxUrlLength: 2048, maxDescriptionLength: 500 };

const url = z
  .string({ error: 'must be an http or https URL' })
  .min(1, 'must be an http or https URL')
  .max(webhookLimits.maxUrlLength, `must be at most ${webhookLimits.maxUrlLength} characters`);

const events = z
  .array(z.enum(webhookEventKinds, { error: `must be one of ${webhookEventKinds.join(', ')}` }), {
    error: 'must be an array of event kinds',
  })
  .min(1, 'name at least one event kind')
  .refine((kinds) => new Set(kinds).size === kinds.length, 'names an event kind more than once');

const description = z
  .string({ error: 'must be a string or null' })
  .max(webhookLimits.maxDescriptionLength, `must be at most ${webhookLimits.maxDescriptionLength} characters`)
  .nullable();

/** POST /webhooks/{id}/deliveries/recover: the dead-lettered deliveries accepted since this instant. */
export const recoverDeliveriesBody = z.strictObject({
  since: z.iso.datetime({
    offset: true,
    error: 'must be a date-time with its offset, e.g. 2026-11-27T09:00:00Z',
  }),
});

/**
 * POST /webhooks/{id}/test: which event type to send an example of; webhook.test when absent (or with no
 * body). Any type the service publishes, whether the subscription takes it or not: the admin asked for it.
 */
export const testWebhookBody = z.strictObject({
  eventType: z
    .enum(testEventTypes, { error: `must be one of ${testEventTypes.join(', ')}` })
    .optional()
    .meta({
      description:
        'The event type to send an example of: `webhook.test` (the default), or any type of the webhooks section, whether the subscription takes it or not. An order’s type carries the fixed example order (docs/webhooks.md), never a customer’s.',
    }),
});

/** At most this many deliveries a recovery schedules; the answer says whether more are left. */
export const recoveryLimit = 1000;

/** POST /webhooks. */
export const registerWebhookBody = z.strictObject({ url, events, description: description.optional() });

/**
 * PATCH /webhooks/{id}, a JSON merge patch (RFC 7396): any of the fields; absent ones stay as they are,
 * `description: null` removes the description. The other fields cannot be removed: null is refused there.
 */
export const changeWebhookBody = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    active: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .refine((changes) => Object.keys(changes).length > 0, {
    message: 'name at least one of url, events, description, active',
    // Only when the fields themselves are fine: an unknown field is reported as that, alone.
    when: (payload) => payload.issues.length === 0,
  });
