import type { SealedWebhookUrl } from '../domain/webhook-subscriptions/subscription-events.ts';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';

/**
 * A webhook URL beyond its origin (a path, a query) may be a credential (`…/services/T0/B0/SECRET`,
 * `?api_key=…`): the log, the read model and the bus hold it sealed by the service's key
 * (WEBHOOK_SECRET_KEY), as they hold the signing secrets, beside its origin in the clear. It is opened to
 * deliver and to answer admins; everyone else (auditors in the audit log, exports) sees its origin.
 */
export type StoredWebhookUrl = string | SealedWebhookUrl;

/** Sealed apart from the secrets: a sealed URL moved into a secret's place does not open, nor the reverse. */
const urlContext = (subscriptionId: string) => `url:${subscriptionId}`;

export const sealWebhookUrl = (
  cipher: Pick<SecretCipher, 'seal'>,
  url: string,
  subscriptionId: string,
): SealedWebhookUrl => ({
  origin: new URL(url).origin,
  sealed: cipher.seal(url, urlContext(subscriptionId)),
});

/** The whole URL: for delivering, and for admins. One registered before URLs were sealed is a string. */
export const openWebhookUrl = (
  cipher: Pick<SecretCipher, 'open'>,
  url: StoredWebhookUrl,
  subscriptionId: string,
): string => (typeof url === 'string' ? url : cipher.open(url.sealed, urlContext(subscriptionId)));

/** What everyone but admins sees of a webhook URL: its origin (scheme, host, port). */
export const webhookUrlOrigin = (url: StoredWebhookUrl): string => {
  if (typeof url !== 'string') return url.origin;
  return URL.canParse(url) ? new URL(url).origin : '(not shown)';
};

/**
 * A subscription event's URL (a registration's, a change's) as the viewer may read it: whole for admins, its
 * origin for everyone else, since a path or a query may be a credential. Sealed from version 2 on, whole
 * in version 1: the same reading for both.
 */
export const withWebhookUrl = (
  data: Record<string, unknown>,
  show: (url: StoredWebhookUrl, subscriptionId: string) => string,
): Record<string, unknown> => {
  const subscriptionId = data['subscriptionId'];
  if (typeof subscriptionId !== 'string') return data;
  if ('url' in data && 'registeredAt' in data) {
    return { ...data, url: show(data['url'] as StoredWebhookUrl, subscriptionId) };
  }
  const changes = data['changes'] as Record<string, unknown> | undefined;
  if (changes && typeof changes === 'object' && changes['url'] !== undefined) {
    return {
      ...data,
      changes: { ...changes, url: show(changes['url'] as StoredWebhookUrl, subscriptionId) },
    };
  }
  return data;
};
