import { orderPersonalData } from '../../domain/orders/personal-data.ts';
import type { RecordedEvent, StreamEvent } from '../../infrastructure/event-store/event-store.ts';
import { storedWithSealedFields } from '../../infrastructure/personal-data/seal-events.ts';
import { webhookUrlOrigin, withWebhookUrl, type StoredWebhookUrl } from '../../webhooks/webhook-url.ts';

/**
 * An event of the log as the audit endpoints show it: the stored fact verbatim (its data as recorded, money
 * in integer minor units, in the version of its type it was written in), where it sits, when, and who acted.
 * A customer reading the history of its own order sees the roles of the staff who acted on it, never their user ids.
 */
export const eventResource = (
  event: StreamEvent | RecordedEvent,
  viewer: {
    userId: string;
    seesEveryActor: boolean;
    /** How this viewer reads a webhook URL: admins whole, everyone else its origin (the default). */
    webhookUrl?: (url: StoredWebhookUrl, subscriptionId: string) => string;
  },
) => {
  const { actor, correlationId, occurredAt } = event.metadata;
  const showsActor = actor === null || viewer.seesEveryActor || actor.userId === viewer.userId;
  // Events stored before versions were recorded are all of their type's first version.
  const version = event.metadata.schemaVersion ?? 1;
  return {
    id: event.id,
    type: event.type,
    streamId: event.streamId,
    revision: event.revision,
    version,
    ...('position' in event ? { position: event.position.toString() } : {}),
    occurredAt,
    actor: actor === null ? null : showsActor ? actor : { roles: actor.roles },
    correlationId,
    // Sealed personal fields are opened (or "[erased]") as the answer leaves; the first personal-data
    // release's bare tokens are read as sealed fields only where that release sealed.
    // A webhook URL whole for admins only, its origin for everyone else (a path may be a credential).
    data: withWebhookUrl(
      withoutSecrets(
        storedWithSealedFields(orderPersonalData, { type: event.type, data: event.data, version }),
      ),
      viewer.webhookUrl ?? webhookUrlOrigin,
    ),
  };
};

/**
 * Webhook secrets are stored sealed in their subscription's events; even sealed, they do not belong in an
 * audit answer. The export (events:export) keeps them, so that its hash chain covers the log as stored.
 */
const withoutSecrets = (data: Record<string, unknown>) =>
  'secret' in data ? { ...data, secret: '(sealed; not shown)' } : data;
